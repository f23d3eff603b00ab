/**
 * What each resource's contract fields may be stored in. A site maps a resource onto its own
 * content type by naming, for each contract field, the attribute that holds it; the plugin's
 * own types use the defaults below.
 */
import { SEO_PART_NAMES, seoPartSpec, type SeoPartName } from '../contract/seo-parts';

export const RESOURCE_KINDS = [
  'post',
  'blogCategory',
  'tag',
  'author',
  'product',
  'productCategory',
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];
/** The kinds that posts and products refer to by name (see RELATION_TARGETS): a missing one is created. */
export type NamedKind = Exclude<ResourceKind, 'post' | 'product'>;

/** How a value is written, chosen from the target attribute's type. */
export type Adapter =
  | 'text'
  | 'blocks'
  | 'datetime'
  | 'date'
  | 'relation'
  | 'names'
  | 'media'
  | 'json'
  | 'seoComponent'
  | 'seoFields'
  | 'dynamicZone';

/** A contract field's role, which decides the adapters it accepts. */
type FieldRole = 'text' | 'html' | 'date' | 'names' | 'name' | 'image' | 'images' | 'seo' | 'parent';

export const FIELD_ROLES: Record<ResourceKind, Record<string, FieldRole>> = {
  post: {
    title: 'text',
    slug: 'text',
    content: 'html',
    excerpt: 'text',
    date: 'date',
    categories: 'names',
    tags: 'names',
    author: 'name',
    featured_image: 'image',
    reading_time: 'text',
    seo: 'seo',
    source_id: 'text',
  },
  blogCategory: { name: 'text', slug: 'text', description: 'text', parent: 'parent' },
  tag: { name: 'text', slug: 'text' },
  author: {
    display_name: 'text',
    username: 'text',
    email: 'text',
    first_name: 'text',
    last_name: 'text',
    description: 'text',
    role: 'text',
    url: 'text',
  },
  product: {
    name: 'text',
    slug: 'text',
    type: 'text',
    description: 'html',
    short_description: 'html',
    categories: 'names',
    tags: 'names',
    images: 'images',
    source_id: 'text',
  },
  productCategory: {
    name: 'text',
    slug: 'text',
    description: 'text',
    image: 'image',
    parent: 'parent',
    source_id: 'text',
  },
};

/** The field that names an entity: taxonomy is found and created by it, pages are titled by it. */
export const NAME_FIELD: Record<ResourceKind, string> = {
  post: 'title',
  blogCategory: 'name',
  tag: 'name',
  author: 'display_name',
  product: 'name',
  productCategory: 'name',
};

/**
 * Contract fields the plugin's identity table keeps whether they are mapped or not: a republish
 * of the same source_id finds its post or product category there. Unmapped, they are hidden from
 * editors but not lost, so they are not listed as "not stored".
 */
export const REMEMBERED_FIELDS: Partial<Record<ResourceKind, string[]>> = {
  post: ['source_id'],
  productCategory: ['source_id'],
};
/**
 * Contract fields that identify or address something (an id, a login, a link): they are never
 * cut to fit an attribute, since a shortened one would name something else. So are values
 * written to `uid` and `email` attributes.
 */
export const IDENTIFIER_FIELDS = ['source_id', 'username', 'email', 'url', 'featured_image', 'image'];

/** Where a relation-typed field must point. */
export const RELATION_TARGETS: Partial<Record<ResourceKind, Record<string, ResourceKind>>> = {
  post: { categories: 'blogCategory', tags: 'tag', author: 'author' },
  blogCategory: { parent: 'blogCategory' },
  product: { categories: 'productCategory', tags: 'tag' },
  productCategory: { parent: 'productCategory' },
};

const TEXT_TYPES = ['string', 'text', 'richtext', 'email', 'uid', 'enumeration'];

/** Adapters a role accepts, by the target attribute's Strapi type. */
export function adapterFor(role: FieldRole, attributeType: string): Adapter | undefined {
  const isText = TEXT_TYPES.includes(attributeType);
  switch (role) {
    case 'text':
      return isText ? 'text' : attributeType === 'blocks' ? 'blocks' : undefined;
    case 'html':
      if (attributeType === 'dynamiczone') return 'dynamicZone';
      return isText ? 'text' : attributeType === 'blocks' ? 'blocks' : undefined;
    case 'date':
      if (attributeType === 'datetime' || attributeType === 'date') return attributeType;
      return isText ? 'text' : undefined;
    case 'names':
      if (attributeType === 'relation') return 'relation';
      return attributeType === 'json' || isText ? 'names' : undefined;
    case 'name':
    case 'parent':
      if (attributeType === 'relation') return 'relation';
      return isText ? 'text' : undefined;
    case 'image':
      if (attributeType === 'media') return 'media';
      return isText ? 'text' : undefined;
    case 'images':
      if (attributeType === 'media') return 'media';
      return attributeType === 'json' ? 'json' : undefined;
    case 'seo':
      if (attributeType === 'component') return 'seoComponent';
      return attributeType === 'json' ? 'json' : undefined;
  }
}

/** The attribute of the site's type each part of the seo object goes into. */
export type SeoMapping = Partial<Record<SeoPartName, string>>;
/** HTML into a dynamic zone; a component left out is chosen from the zone, `false` means none. */
export type ZoneMapping = {
  attribute: string;
  components?: { text?: string; image?: string | false; quote?: string | false };
};
export type FieldMapping = string | SeoMapping | ZoneMapping;

/** Where the plugin's own post type keeps the seo parts it has an attribute for. */
const OWN_SEO_ATTRIBUTES: SeoMapping = Object.fromEntries(
  SEO_PART_NAMES.flatMap((part) => {
    const attribute = seoPartSpec(part).ownAttribute;
    return attribute ? [[part, attribute]] : [];
  })
);

/** The plugin's own content types, used for every resource a site does not map. */
export const DEFAULT_MAPPING: Record<ResourceKind, { uid: string; fields: Record<string, FieldMapping> }> = {
  post: {
    uid: 'plugin::publish-bridge.post',
    fields: {
      title: 'title',
      slug: 'slug',
      content: 'content',
      excerpt: 'excerpt',
      date: 'publishDate',
      categories: 'categories',
      tags: 'tags',
      author: 'author',
      featured_image: 'featuredImage',
      reading_time: 'readingTime',
      seo: OWN_SEO_ATTRIBUTES,
      source_id: 'sourceId',
    },
  },
  blogCategory: {
    uid: 'plugin::publish-bridge.blog-category',
    fields: { name: 'name', slug: 'slug', description: 'description', parent: 'parent' },
  },
  tag: { uid: 'plugin::publish-bridge.tag', fields: { name: 'name', slug: 'slug' } },
  author: {
    uid: 'plugin::publish-bridge.author',
    fields: {
      display_name: 'displayName',
      username: 'username',
      email: 'email',
      first_name: 'firstName',
      last_name: 'lastName',
      description: 'description',
      role: 'role',
      url: 'url',
    },
  },
  product: {
    uid: 'plugin::publish-bridge.product',
    fields: {
      name: 'name',
      slug: 'slug',
      type: 'type',
      description: 'description',
      short_description: 'shortDescription',
      categories: 'categories',
      tags: 'tags',
      images: 'images',
      source_id: 'sourceId',
    },
  },
  productCategory: {
    uid: 'plugin::publish-bridge.product-category',
    fields: {
      name: 'name',
      slug: 'slug',
      description: 'description',
      image: 'image',
      parent: 'parent',
      source_id: 'sourceId',
    },
  },
};
