import type { Core } from '@strapi/strapi';
import { UIDS } from '../constants';
import { toSlug } from '../utils/slug';
import type { Transaction } from './transactions';

type NamedResource = { uid: string; resource: string; nameField: string; slugField?: string };

export type NamedKind = 'blogCategory' | 'tag' | 'productCategory' | 'author';

/** Entities a post or product refers to by name; missing ones are created. */
export const NAMED_RESOURCES: Record<NamedKind, NamedResource> = {
  blogCategory: { uid: UIDS.blogCategory, resource: 'blog_category', nameField: 'name', slugField: 'slug' },
  tag: { uid: UIDS.tag, resource: 'tag', nameField: 'name', slugField: 'slug' },
  productCategory: {
    uid: UIDS.productCategory,
    resource: 'product_category',
    nameField: 'name',
    slugField: 'slug',
  },
  author: { uid: UIDS.author, resource: 'author', nameField: 'displayName' },
};

export type FoundOrCreated = { documentId: string; created: boolean };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const identities = () => strapi.plugin('publish-bridge').service('identities');
  const documents = (uid: string) => strapi.documents(uid as never);

  async function exists(uid: string, documentId: string) {
    return Boolean(await documents(uid).findOne({ documentId, fields: ['documentId'] } as never));
  }

  return {
    nameKey: (name: string) => `name:${identities().normalise(name)}`,

    /**
     * The entity named `name` (case-insensitive): the one the registry knows, else one an
     * editor created with that name, else a new one built from `data`.
     */
    async findOrCreate(
      { trx }: Transaction,
      kind: NamedKind,
      name: string,
      data: Record<string, unknown> = {}
    ): Promise<FoundOrCreated> {
      const { uid, resource, nameField, slugField } = NAMED_RESOURCES[kind];
      const registry = identities();
      const key = this.nameKey(name);

      const known = await registry.lookup(trx, resource, key);
      if (known && (await exists(uid, known))) return { documentId: known, created: false };
      if (known) await registry.forgetKey(trx, resource, key);

      const existing = await documents(uid).findFirst({
        filters: { [nameField]: { $eqi: name.trim() } },
        fields: ['documentId'],
      } as never);
      if (existing) {
        await registry.claim(trx, resource, key, existing.documentId);
        return { documentId: existing.documentId, created: false };
      }

      const slug = slugField
        ? await registry.freeSlug(trx, resource, uid, toSlug(String(data[slugField] ?? name), resource))
        : undefined;
      const created = await documents(uid).create({
        data: { ...data, [nameField]: name.trim(), ...(slugField ? { [slugField]: slug } : {}) },
        status: 'published',
      } as never);
      await registry.claim(trx, resource, key, created.documentId);
      if (slug) await registry.claim(trx, resource, `slug:${slug}`, created.documentId);
      return { documentId: created.documentId, created: true };
    },

    /** Document ids for `names` in their order, duplicates (case-insensitive) folded. */
    async resolveNames(transaction: Transaction, kind: NamedKind, names: string[]): Promise<string[]> {
      const unique = new Map<string, string>();
      for (const name of names) {
        const key = this.nameKey(name);
        if (!unique.has(key)) unique.set(key, name);
      }
      // Claiming in one global order keeps two publishes that share names from deadlocking.
      const ids = new Map<string, string>();
      for (const key of [...unique.keys()].sort()) {
        ids.set(key, (await this.findOrCreate(transaction, kind, unique.get(key)!)).documentId);
      }
      return [...unique.keys()].map((key) => ids.get(key)!);
    },
  };
};
