import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { postCreateSchema, postUpdateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody, replyWithEntity } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const posts = () => strapi.plugin(PLUGIN_ID).service('posts');
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
