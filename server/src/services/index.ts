import activity from './delivery/activity';
import activityWriter from './delivery/activity-writer';
import authors from './publishing/authors';
import availability from './connection/availability';
import blogCategories from './publishing/blog-categories';
import categories from './publishing/categories';
import connectionTest from './connection/connection-test';
import connections from './connection/connections';
import contentAccess from './editors/content-access';
import deferredWrites from './delivery/deferred-writes';
import editorChanges from './editors/editor-changes';
import entities from './publishing/entities';
import fields from './publishing/fields';
import fingerprints from './editors/fingerprints';
import handshake from './connection/handshake';
import identities from './publishing/identities';
import keptTables from './site/kept-tables';
import locales from './site/locales';
import managedEntries from './editors/managed-entries';
import mapping from './site/mapping';
import markdown from './publishing/markdown';
import media from './publishing/media';
import pages from './publishing/pages';
import platformLogs from './connection/platform-logs';
import posts from './publishing/posts';
import productCategories from './publishing/product-categories';
import products from './publishing/products';
import receipts from './delivery/receipts';
import revisions from './editors/revisions';
import rolePermissions from './site/role-permissions';
import schedules from './editors/schedules';
import settings from './connection/settings';
import settingsOverview from './connection/settings-overview';
import slugIndexes from './site/slug-indexes';
import taxonomy from './publishing/taxonomy';
import transactions from './delivery/transactions';
import uninstall from './site/uninstall';
import urls from './site/urls';
import versions from './editors/versions';

const services = {
  activity,
  'activity-writer': activityWriter,
  authors,
  availability,
  'blog-categories': blogCategories,
  categories,
  'connection-test': connectionTest,
  connections,
  'content-access': contentAccess,
  'deferred-writes': deferredWrites,
  'editor-changes': editorChanges,
  entities,
  fields,
  fingerprints,
  handshake,
  identities,
  'kept-tables': keptTables,
  locales,
  'managed-entries': managedEntries,
  mapping,
  markdown,
  media,
  pages,
  'platform-logs': platformLogs,
  posts,
  'product-categories': productCategories,
  products,
  receipts,
  revisions,
  'role-permissions': rolePermissions,
  schedules,
  settings,
  'settings-overview': settingsOverview,
  'slug-indexes': slugIndexes,
  taxonomy,
  transactions,
  uninstall,
  urls,
  versions,
};

type Registry = { [Name in keyof typeof services]: ReturnType<(typeof services)[Name]> };

declare module '../plugin' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the registry's members are its own
  interface Services extends Registry {}
}

export default services;
