import { UIDS } from './constants';
import type { PageType } from './services/urls';

/**
 * Every resource the contract writes: where it is stored, the name it has in the identity
 * registry and in messages, and which attributes hold its name and slug.
 */
export type Resource = {
  uid: string;
  registry: string;
  label: string;
  nameField: string;
  slugField?: string;
  pageType?: PageType;
};

export const RESOURCES = {
  post: { uid: UIDS.post, registry: 'post', label: 'post', nameField: 'title', slugField: 'slug', pageType: 'post' },
  blogCategory: {
    uid: UIDS.blogCategory,
    registry: 'blog_category',
    label: 'blog category',
    nameField: 'name',
    slugField: 'slug',
    pageType: 'category',
  },
  tag: { uid: UIDS.tag, registry: 'tag', label: 'tag', nameField: 'name', slugField: 'slug' },
  author: { uid: UIDS.author, registry: 'author', label: 'author', nameField: 'displayName' },
  product: {
    uid: UIDS.product,
    registry: 'product',
    label: 'product',
    nameField: 'name',
    slugField: 'slug',
    pageType: 'product',
  },
  productCategory: {
    uid: UIDS.productCategory,
    registry: 'product_category',
    label: 'product category',
    nameField: 'name',
    slugField: 'slug',
    pageType: 'product_cat',
  },
} satisfies Record<string, Resource>;

export type ResourceKind = keyof typeof RESOURCES;
