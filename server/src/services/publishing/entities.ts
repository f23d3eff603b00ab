import type { Core } from '@strapi/strapi';
import { notFound, notThePlatforms } from '../../contract/errors';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import type { Transaction } from '../delivery/transactions';
import type { DeletedResponse, EntityResponse } from '../../contract/responses';
import type { EntityResult } from '../types';
import { editorsEntryKey } from './identities';
import { getService, pluginConfig } from '../../plugin';
import { documentsOf } from '../../database/documents';

/** What every resource shares: the entity response, and deletion with its identities. */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** Whether another connection's publisher created the document (in its own registry, as `knows` tells). */
  async function writtenByAnotherConnection({ trx }: Transaction, resource: Resource, documentId: string) {
    const mapping = getService(strapi, 'mapping');
    const current = getService(strapi, 'connections').current().name;
    for (const connection of mapping.fittingConnections()) {
      if (connection.name === current) continue;
      const theirs = mapping.resource(resource.kind, connection);
      if (
        theirs.uid === resource.uid &&
        (await getService(strapi, 'identities').knows(trx, theirs.registry, documentId))
      )
        return true;
    }
    return false;
  }

  return {
    /**
     * `written` is the entry a write just returned, when there is one: it already holds the slug.
     * `at` names the locale whose slug the URL takes, in a type with i18n on.
     */
    async response(
      resource: Resource,
      documentId: string,
      written?: Record<string, unknown> | null,
      at: LocaleScope = {}
    ): Promise<EntityResponse> {
      const urls = getService(strapi, 'urls');
      if (!resource.pageType || !resource.slugField || !urls.hasTemplate(resource.pageType))
        return { id: documentId };
      const entry =
        written && resource.slugField in written
          ? written
          : await documentsOf(strapi, resource.uid).findOne({
              documentId,
              ...at,
              fields: [resource.slugField],
            });
      const slug = (entry as Record<string, unknown> | null)?.[resource.slugField] as string | undefined;
      return { id: documentId, url: urls.urlFor(resource.pageType, { documentId, slug }) };
    },

    /**
     * `result` with a draft's preview link: where the site configured Strapi's Preview, a
     * document with no published version (in the plugin's locale) answers the URL Preview builds
     * for its draft, as the public URL only opens once it is published. Called after the write
     * committed (see urls.draftUrl); a handler that fails leaves the public URL, with a note.
     */
    async withDraftPreview<T extends EntityResult>(
      resource: Resource,
      result: T,
      at: LocaleScope = {}
    ): Promise<T> {
      const urls = getService(strapi, 'urls');
      if (!resource.draftAndPublish || !urls.hasPreview()) return result;
      if ((await getService(strapi, 'versions').state(resource, result.id, at)).published) return result;
      const preview = await urls.draftUrl(resource.uid, result.id, at.locale);
      if (!preview) return result;
      return 'url' in preview
        ? { ...result, url: preview.url }
        : { ...result, notes: [...result.notes, preview.note] };
    },

    /**
     * Locks the document's rows, or answers 404 when it does not exist (also for a malformed id),
     * or, in a type with i18n on, has no version in the plugin's locale.
     */
    async lockOrNotFound(
      { trx }: Transaction,
      resource: Resource,
      documentId: string,
      at: LocaleScope = {}
    ): Promise<void> {
      if (!(await getService(strapi, 'identities').lockDocument(trx, resource.uid, documentId, at))) {
        throw notFound(resource.label, documentId);
      }
    },

    /**
     * `lockOrNotFound` for an entry the publisher may change: one the plugin created, which the
     * identity registry knows. Any other entry of the type (an article an editor wrote, say)
     * answers 404 as an unknown id does, with a message that says it is not the platform's and
     * how to adopt it: the platform can only send an id the site returned or a user copied from
     * Strapi, so naming the entry tells it nothing it could not see. A site that sets
     * `adoptExistingEntries` lets it: the entry is then recorded as the plugin's, and stays so.
     * An entry another connection's publisher created is that connection's: it answers 404 as an
     * unknown id does, adoption or not (adoption is for editors' entries).
     */
    async lockOwnOrNotFound(
      transaction: Transaction,
      resource: Resource,
      documentId: string,
      at: LocaleScope = {}
    ): Promise<void> {
      await this.lockOrNotFound(transaction, resource, documentId, at);
      const identities = getService(strapi, 'identities');
      if (await identities.knows(transaction.trx, resource.registry, documentId)) return;
      if (await writtenByAnotherConnection(transaction, resource, documentId))
        throw notFound(resource.label, documentId);
      if (!pluginConfig(strapi).adoptExistingEntries) throw notThePlatforms(resource.label, documentId);
      await identities.forgetKey(transaction.trx, resource.registry, editorsEntryKey(documentId));
      await identities.claimDocument(transaction.trx, resource.registry, [], documentId);
    },

    /**
     * Removes every version of the document; relations to it go with it, the entries it was
     * related to stay. In a type with i18n on, only the plugin's locale goes: the translations
     * editors made stay in Strapi, and the platform no longer knows the document.
     */
    async remove(resource: Resource, documentId: string): Promise<DeletedResponse> {
      const at: LocaleScope = await getService(strapi, 'locales').scopeOf(resource);
      return getService(strapi, 'transactions').run(async (transaction: Transaction) => {
        await this.lockOwnOrNotFound(transaction, resource, documentId, at);
        await getService(strapi, 'revisions').keepBeforeDelete(resource, documentId, at);
        await documentsOf(strapi, resource.uid).delete({ documentId, ...at });
        await getService(strapi, 'identities').forgetTarget(transaction.trx, resource.registry, documentId);
        await getService(strapi, 'identities').forgetSlugs(transaction.trx, resource.uid, documentId);
        // The entry's managed-entry row goes, and with it a publish that waited for the entry's date.
        await getService(strapi, 'fingerprints').forget(transaction.trx, resource, documentId, at);
        return { id: documentId, deleted: true as const };
      });
    },
  };
};
