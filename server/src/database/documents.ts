import type { Core, UID } from '@strapi/strapi';

/**
 * The Document Service for a content type named at run time. Strapi types `strapi.documents()` by
 * the uids an app generates, which a plugin that maps onto any site's types cannot name when it
 * is compiled: the one cast is here, and the calls the plugin makes are typed below.
 */

/** A document's version as the Document Service returns it. */
export type DocumentEntry = { id: number; documentId: string; [attribute: string]: unknown };

type Version = { documentId: string; locale?: string };
type Reading = {
  locale?: string;
  status?: 'draft' | 'published';
  fields?: string[];
  populate?: unknown;
};
type Writing = { locale?: string; status?: 'draft' | 'published'; data: Record<string, unknown> };
type Listing = Reading & {
  filters?: Record<string, unknown>;
  sort?: unknown;
  start?: number;
  limit?: number;
};
type Changed = { documentId: string; entries: DocumentEntry[] };

export type Documents = {
  findOne(params: Version & Reading): Promise<DocumentEntry | null>;
  findMany(params: Listing): Promise<DocumentEntry[]>;
  create(params: Writing): Promise<DocumentEntry>;
  update(params: Version & Writing): Promise<DocumentEntry | null>;
  delete(params: Version): Promise<Changed>;
  publish(params: Version): Promise<Changed>;
  unpublish(params: Version): Promise<Changed>;
  discardDraft(params: Version): Promise<Changed>;
};

export function documentsOf(strapi: Core.Strapi, uid: string): Documents {
  return strapi.documents(uid as UID.ContentType) as unknown as Documents;
}
