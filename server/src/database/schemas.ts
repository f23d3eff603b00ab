import type { Core, UID } from '@strapi/strapi';
import { contentTypes } from '@strapi/utils';
import type { AttributeSchema } from '../mapping/resolve';

/**
 * Content types, components and their rows for uids named at run time. Strapi types these by
 * the uids an app generates, which a plugin that maps onto any site's types cannot name when it
 * is compiled: the casts are here, once each, with the shapes the plugin reads.
 */

/** A content type's or component's schema, as registered. */
export type Schema = {
  info?: { displayName?: string };
  attributes: Record<string, AttributeSchema>;
  /** Per-plugin options, e.g. `{ 'content-manager': { visible: false } }`; content types only. */
  pluginOptions?: Record<string, Record<string, unknown>>;
};

/** One lookup: `strapi.contentTypes` builds a new map of every type on each read. */
export const contentTypeOf = (strapi: Core.Strapi, uid: string) =>
  strapi.contentType(uid as UID.ContentType) as unknown as Schema | undefined;

/** Whether a content type has Draft & Publish on, by Strapi's own rule. */
export function hasDraftAndPublish(strapi: Core.Strapi, uid: string): boolean {
  const schema = strapi.contentType(uid as UID.ContentType);
  return schema !== undefined && contentTypes.hasDraftAndPublish(schema);
}

/** Every content type of the site, by uid. */
export const allContentTypes = (strapi: Core.Strapi) =>
  strapi.contentTypes as unknown as Record<string, Schema>;

export const componentOf = (strapi: Core.Strapi, uid: string) =>
  strapi.components[uid as UID.Component] as unknown as Schema | undefined;

type Row = { id: number; [column: string]: unknown };
type Where = Record<string, unknown>;
type Reading = { where?: Where; select?: string[]; orderBy?: unknown; limit?: number; offset?: number };

/** Strapi's Query Engine (rows, not documents) for the plugin's own bookkeeping types and upload files. */
export type Rows<R = Row> = {
  findOne(params: Reading): Promise<R | null>;
  findMany(params?: Reading): Promise<R[]>;
  findPage(params: Reading & { page: number; pageSize: number }): Promise<{
    results: R[];
    pagination: { page: number; pageSize: number; pageCount: number; total: number };
  }>;
  count(params?: { where?: Where }): Promise<number>;
  create(params: { data: Record<string, unknown> }): Promise<R>;
  createMany(params: { data: Array<Record<string, unknown>> }): Promise<{ count: number }>;
  update(params: { where: Where; data: Record<string, unknown> }): Promise<R | null>;
  delete(params: { where: Where }): Promise<R | null>;
  deleteMany(params: { where: Where }): Promise<{ count: number }>;
};

/** `R`: the rows' shape, where the caller knows it. */
export const rowsOf = <R = Row>(strapi: Core.Strapi, uid: string) =>
  strapi.db.query(uid as UID.Schema) as unknown as Rows<R>;
