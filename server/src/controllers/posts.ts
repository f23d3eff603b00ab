import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { postCreateSchema, postUpdateSchema } from '../contract/schemas';
import { contractBody, replyWithEntity } from './contract-body';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const posts = () => getService(strapi, 'posts');
  return {
    async create(ctx: Context) {
      replyWithEntity(ctx, await posts().create(contractBody(ctx, postCreateSchema)));
    },

    async update(ctx: Context) {
      replyWithEntity(ctx, await posts().update(ctx.params.id, contractBody(ctx, postUpdateSchema)));
    },

    async delete(ctx: Context) {
      ctx.body = await posts().remove(ctx.params.id);
    },
  };
};
