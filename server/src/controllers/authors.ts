import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { authorCreateSchema } from '../contract/schemas';
import { contractBody, replyWithEntity } from './contract-body';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async create(ctx: Context) {
    replyWithEntity(ctx, await getService(strapi, 'authors').create(contractBody(ctx, authorCreateSchema)));
  },
});
