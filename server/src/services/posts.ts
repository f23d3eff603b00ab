import type { Core } from '@strapi/strapi';
import { publishDateToIso } from '../contract/dates';
import type { PostCreate, PostUpdate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { RESOURCES } from '../resources';
import type { EntityResponse } from './entities';
import { toSlug } from '../utils/slug';
import type { Transaction } from './transactions';

const POST = RESOURCES.post;
const RESOURCE = POST.registry;
const sourceKey = (sourceId: string) => `source:${sourceId}`;

/**
 * Posts as the contract sees them (section 2.1, states in section 3): `publish` means the
 * document has a published version, `draft` that it has none. Every write runs in one
 * transaction with the document's rows locked, so concurrent requests apply one by one.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const transactions = () => plugin().service('transactions');
  const identities = () => plugin().service('identities');
  const taxonomy = () => plugin().service('taxonomy');
  const posts = () => strapi.documents(POST.uid as never);

  /** Only the fields present in `input` become data, so omitted ones keep their stored values. */
  async function toData(transaction: Transaction, input: PostUpdate): Promise<Record<string, unknown>> {
    const data: Record<string, unknown> = {};
    if (input.title !== undefined) data.title = input.title;
    if (input.content !== undefined) data.content = input.content;
    if (input.excerpt !== undefined) data.excerpt = input.excerpt;
    if (input.date !== undefined)
      data.publishDate = publishDateToIso(input.date, plugin().service('settings').config().timezone);
    if (input.featured_image !== undefined) data.featuredImage = input.featured_image || null;
    if (input.reading_time !== undefined) data.readingTime = input.reading_time;
    if (input.source_id !== undefined) data.sourceId = input.source_id;
    if (input.seo?.title !== undefined) data.seoTitle = input.seo.title;
    if (input.seo?.description !== undefined) data.seoDescription = input.seo.description;
    if (input.seo?.keywords !== undefined) data.seoKeywords = input.seo.keywords;
    if (input.categories !== undefined) {
      data.categories = { set: await taxonomy().resolveNames(transaction, 'blogCategory', input.categories) };
    }
    if (input.tags !== undefined) {
      data.tags = { set: await taxonomy().resolveNames(transaction, 'tag', input.tags) };
    }
    if (input.author !== undefined) {
      data.author = input.author.trim()
        ? (await taxonomy().findOrCreate(transaction, 'author', input.author)).documentId
        : null;
    }
    return data;
  }

  async function isPublished(documentId: string) {
    return Boolean(
      await posts().findOne({ documentId, status: 'published', fields: ['documentId'] } as never)
    );
  }

  const toEntity = (documentId: string) => plugin().service('entities').response(POST, documentId);

  /** The source_id names this post from now on, unless another post already holds it. */
  async function linkSource(transaction: Transaction, sourceId: string, documentId: string) {
    const holder = await identities().lookup(transaction.trx, RESOURCE, sourceKey(sourceId));
    if (!holder) await identities().claim(transaction.trx, RESOURCE, sourceKey(sourceId), documentId);
  }

  async function applyUpdate(transaction: Transaction, documentId: string, input: PostUpdate) {
    const data = await toData(transaction, input);
    if (input.source_id) await linkSource(transaction, input.source_id, documentId);
    const published = await isPublished(documentId);
    const shouldBePublished = input.status ? input.status === 'publish' : published;

    if (Object.keys(data).length > 0) {
      await posts().update({
        documentId,
        data,
        ...(shouldBePublished ? { status: 'published' } : {}),
      } as never);
    } else if (shouldBePublished && !published) {
      await posts().publish({ documentId } as never);
    }
    if (published && !shouldBePublished) await posts().unpublish({ documentId } as never);
    return toEntity(documentId);
  }

  async function createNew(transaction: Transaction, input: PostCreate) {
    const data = await toData(transaction, input);
    const slug = await identities().freeSlug(
      transaction.trx,
      RESOURCE,
      POST.uid,
      toSlug(input.title, RESOURCE)
    );
    const post = await posts().create({
      data: { ...data, slug },
      ...(input.status === 'publish' ? { status: 'published' } : {}),
    } as never);
    await identities().claim(transaction.trx, RESOURCE, `slug:${slug}`, post.documentId);
    if (input.source_id)
      await identities().claim(transaction.trx, RESOURCE, sourceKey(input.source_id), post.documentId);
    return toEntity(post.documentId);
  }

  return {
    /**
     * Publishing content whose source_id already has a post updates that post, so retries
     * and republishes never duplicate. A post deleted in Strapi meanwhile is not resurrected:
     * the source_id is relinked to a new post.
     */
    async create(input: PostCreate): Promise<EntityResponse & { created: boolean }> {
      return transactions().run(async (transaction: Transaction) => {
        if (input.source_id) {
          const keys = [sourceKey(input.source_id)];
          const known = await identities().findLive(transaction.trx, RESOURCE, POST.uid, keys);
          if (known) return { ...(await applyUpdate(transaction, known, input)), created: false };
        }
        return { ...(await createNew(transaction, input)), created: true };
      });
    },

    async update(documentId: string, input: PostUpdate): Promise<EntityResponse> {
      return transactions().run(async (transaction: Transaction) => {
        await plugin().service('entities').lockOrNotFound(transaction, POST, documentId);
        return applyUpdate(transaction, documentId, input);
      });
    },

    remove: (documentId: string) => plugin().service('entities').remove(POST, documentId),
  };
};
