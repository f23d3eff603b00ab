import type { Core } from '@strapi/strapi';
import type { Paging } from '../../contract/paging';
import type { ProductCategoryItem } from '../../contract/responses';
import type { ProductCategoryCreate } from '../../contract/schemas';
import type { Resource } from '../../resources';
import { getService } from '../../plugin';
import { documentsOf } from '../../database/documents';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const resource = (): Resource => getService(strapi, 'mapping').resource('productCategory');

  return {
    /** Idempotent by `source_id` or name (case-insensitive): an existing category is returned as it is. */
    create: ({ name, ...fields }: ProductCategoryCreate) =>
      getService(strapi, 'categories').create('productCategory', name, fields, {
        sourceId: fields.source_id,
      }),

    /** Published categories in creation order; `parent` is the parent's id, or "" for a top-level one. */
    async list({ offset, limit }: Paging): Promise<ProductCategoryItem[]> {
      const { uid, nameField, slugField, fields, draftAndPublish } = resource();
      const text = (field: string) =>
        fields[field]?.adapter === 'text' ? fields[field].attribute : undefined;
      const parent = fields.parent?.adapter === 'relation' ? fields.parent.attribute : undefined;
      const description = text('description');
      const categories = await documentsOf(strapi, uid).findMany({
        ...(draftAndPublish ? { status: 'published' } : {}),
        fields: [nameField, ...(slugField ? [slugField] : []), ...(description ? [description] : [])],
        ...(parent ? { populate: { [parent]: { fields: ['documentId'] } } } : {}),
        sort: [{ createdAt: 'asc' }, { documentId: 'asc' }],
        start: offset,
        limit,
      });
      const textOf = (value: unknown) => (typeof value === 'string' ? value : '');
      return categories.map((category) => {
        // The parent relation may be a list; its first entry is the parent.
        const parentEntry = parent
          ? ([category[parent] ?? []].flat()[0] as { documentId?: string } | undefined)
          : undefined;
        return {
          id: category.documentId,
          name: textOf(category[nameField]),
          slug: slugField ? textOf(category[slugField]) : '',
          description: description ? textOf(category[description]) : '',
          parent: parentEntry?.documentId ?? '',
        };
      });
    },
  };
};
