import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { postCreateSchema, postUpdateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const posts = () => strapi.plugin(PLUGIN_ID).service('posts');
  return {
    async create(ctx: Context) {
      const { created: _created, ...entity } = await posts().create(contractBody(ctx, postCreateSchema));
      ctx.body = entity;
    },

    async update(ctx: Context) {
      ctx.body = await posts().update(ctx.params.id, contractBody(ctx, postUpdateSchema));
    },

    async delete(ctx: Context) {
      ctx.body = await posts().remove(ctx.params.id);
    },
  };
};
