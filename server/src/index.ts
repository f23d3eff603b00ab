import bootstrap from './bootstrap';
import config from './config';
import contentTypes from './content-types';
import controllers from './controllers';
import destroy from './destroy';
import middlewares from './middlewares';
import register from './register';
import routes from './routes';
import services from './services';

export type { PublishBridgeConfig, PublishBridgeContentTypeMapping } from './public-types';

export default {
  register,
  bootstrap,
  destroy,
  config,
  contentTypes,
  controllers,
  middlewares,
  routes,
  services,
};
