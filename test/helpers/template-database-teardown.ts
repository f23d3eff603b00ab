import { tearDown } from './template-database';

/** Jest's global teardown of the integration tests: the template database goes. */
export default tearDown;
