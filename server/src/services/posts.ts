import type { Core } from '@strapi/strapi';
import type { PostCreate, PostUpdate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import type { Resource } from '../resources';
import { toSlug } from '../utils/slug';
import type { EntityResponse } from './entities';
import type { MediaMap } from './fields';
import type { Transaction } from './transactions';

const sourceKey = (sourceId: string) => `source:${sourceId}`;

export type PostResult = EntityResponse & { notes: string[] };

/**
 * Posts as the contract sees them (section 2.1, states in section 3): `publish` means the
 * document has a published version, `draft` that it has none. Every write runs in one
 * transaction with the document's rows locked, so concurrent requests apply one by one.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const identities = () => plugin().service('identities');
  const fields = () => plugin().service('fields');
  const resource = (): Resource => plugin().service('mapping').resource('post');
  const posts = () => strapi.documents(resource().uid as never);

  /** For a localized type only the default locale's version counts, which a row lock does not tell apart. */
  const isLocalized = () =>
    (strapi.contentTypes[resource().uid as never] as { pluginOptions?: { i18n?: { localized?: boolean } } })
      ?.pluginOptions?.i18n?.localized === true;

  async function isPublished(documentId: string) {
    return Boolean(
      await posts().findOne({ documentId, status: 'published', fields: ['documentId'] } as never)
    );
  }

  /**
   * The stored values a partial update merges into, read only when needed: the seo object, and a
   * dynamic zone receiving content (its editor-added components stay).
   */
  async function mergeBase(documentId: string, input: PostUpdate) {
    const { seo, content } = resource().fields;
    const populate = [
      ...(input.seo !== undefined && seo && ['json', 'seoComponent'].includes(seo.adapter)
        ? [seo.attribute]
        : []),
      ...(input.content !== undefined && content?.adapter === 'dynamicZone' ? [content.attribute] : []),
    ];
    if (populate.length === 0) return null;
    return posts().findOne({ documentId, populate } as never) as Promise<Record<string, unknown> | null>;
  }

  /** The source_id names this post from now on, unless another post already holds it. */
  async function linkSource(transaction: Transaction, sourceId: string, documentId: string) {
    const holder = await identities().lookup(transaction.trx, resource().registry, sourceKey(sourceId));
    if (!holder)
      await identities().claim(transaction.trx, resource().registry, sourceKey(sourceId), documentId);
  }

  async function applyUpdate(
    transaction: Transaction,
    documentId: string,
    input: PostUpdate,
    media: MediaMap,
    lockedPublished?: boolean
  ) {
    const { draftAndPublish } = resource();
    const { data, notes } = await fields().toData(
      transaction,
      resource(),
      input,
      media,
      await mergeBase(documentId, input)
    );
    if (input.source_id) await linkSource(transaction, input.source_id, documentId);
    const published = draftAndPublish && (lockedPublished ?? (await isPublished(documentId)));
    const shouldBePublished = draftAndPublish && (input.status ? input.status === 'publish' : published);

    let written: Record<string, unknown> | null | undefined;
    if (Object.keys(data).length > 0) {
      written = await posts().update({
        documentId,
        data,
        ...(shouldBePublished ? { status: 'published' } : {}),
      } as never);
    } else if (shouldBePublished && !published) {
      await posts().publish({ documentId } as never);
    }
    if (published && !shouldBePublished) await posts().unpublish({ documentId } as never);
    if (input.status === 'draft' && !draftAndPublish) {
      notes.push(`${resource().uid} has no draft & publish, so the post stays published.`);
    }
    return { ...(await plugin().service('entities').response(resource(), documentId, written)), notes };
  }

  async function createNew(transaction: Transaction, input: PostCreate, media: MediaMap) {
    const { registry, uid, slugField } = resource();
    const { data, notes } = await fields().toData(transaction, resource(), input, media);
    const slug = slugField
      ? await identities().freeSlug(transaction.trx, registry, uid, slugField, toSlug(input.title, registry))
      : undefined;
    const post = await posts().create({
      data: slugField ? { ...data, [slugField]: slug } : data,
      ...(input.status === 'publish' ? { status: 'published' } : {}),
    } as never);
    const keys = [
      ...(slug ? [`slug:${slug}`] : []),
      ...(input.source_id ? [sourceKey(input.source_id)] : []),
    ];
    await identities().claimAll(transaction.trx, registry, keys, post.documentId);
    return { ...(await plugin().service('entities').response(resource(), post.documentId, post)), notes };
  }

  return {
    /**
     * Publishing content whose source_id already has a post updates that post, so retries
     * and republishes never duplicate. A post deleted in Strapi meanwhile is not resurrected:
     * the source_id is relinked to a new post.
     */
    async create(input: PostCreate): Promise<PostResult & { created: boolean }> {
      return fields().withMedia(resource(), input, async (transaction: Transaction, media: MediaMap) => {
        if (input.source_id) {
          const { registry, uid } = resource();
          const known = await identities().findLive(transaction.trx, registry, uid, [
            sourceKey(input.source_id),
          ]);
          if (known) return { ...(await applyUpdate(transaction, known, input, media)), created: false };
        }
        return { ...(await createNew(transaction, input, media)), created: true };
      });
    },

    async update(documentId: string, input: PostUpdate): Promise<PostResult> {
      return fields().withMedia(resource(), input, async (transaction: Transaction, media: MediaMap) => {
        const { published } = await plugin()
          .service('entities')
          .lockOrNotFound(transaction, resource(), documentId);
        return applyUpdate(transaction, documentId, input, media, isLocalized() ? undefined : published);
      });
    },

    remove: (documentId: string) => plugin().service('entities').remove(resource(), documentId),
  };
};
