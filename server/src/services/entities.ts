import type { Core } from '@strapi/strapi';
import { notFound } from '../contract/errors';
import { PLUGIN_ID } from '../constants';
import type { Resource } from '../resources';
import type { Transaction } from './transactions';

export type EntityResponse = { id: string; url?: string };
export type DeletedResponse = { id: string; deleted: true };

/** What every resource shares: the entity response, and deletion with its identities. */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);

  return {
    /** `written` is the entry a write just returned, when there is one: it already holds the slug. */
    async response(
      resource: Resource,
      documentId: string,
      written?: Record<string, unknown> | null
    ): Promise<EntityResponse> {
      const urls = plugin().service('urls');
      if (!resource.pageType || !resource.slugField || !urls.hasTemplate(resource.pageType))
        return { id: documentId };
      const entry =
        written && resource.slugField in written
          ? written
          : await strapi
              .documents(resource.uid as never)
              .findOne({ documentId, fields: [resource.slugField] } as never);
      const slug = (entry as Record<string, unknown> | null)?.[resource.slugField] as string | undefined;
      return { id: documentId, url: urls.urlFor(resource.pageType, { documentId, slug }) };
    },

    /**
     * Locks the document's rows, or answers 404 when it does not exist (also for a malformed id);
     * tells whether one of the rows is a published version.
     */
    async lockOrNotFound(
      { trx }: Transaction,
      resource: Resource,
      documentId: string
    ): Promise<{ published: boolean }> {
      const versions = await plugin().service('identities').lockVersions(trx, resource.uid, documentId);
      if (!versions) throw notFound(resource.label, documentId);
      return versions;
    },

    /** Removes every version of the document; relations to it go with it, the entries it was related to stay. */
    async remove(resource: Resource, documentId: string): Promise<DeletedResponse> {
      return plugin()
        .service('transactions')
        .run(async (transaction: Transaction) => {
          await this.lockOrNotFound(transaction, resource, documentId);
          await strapi.documents(resource.uid as never).delete({ documentId } as never);
          await plugin().service('identities').forgetTarget(transaction.trx, resource.registry, documentId);
          return { id: documentId, deleted: true as const };
        });
    },
  };
};
