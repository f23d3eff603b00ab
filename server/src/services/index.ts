import activity from './activity';
import activityWriter from './activity-writer';
import authors from './authors';
import availability from './availability';
import blogCategories from './blog-categories';
import categories from './categories';
import connectionTest from './connection-test';
import contentAccess from './content-access';
import editorChanges from './editor-changes';
import entities from './entities';
import fields from './fields';
import fingerprints from './fingerprints';
import handshake from './handshake';
import identities from './identities';
import keptTables from './kept-tables';
import locales from './locales';
import managedEntries from './managed-entries';
import mapping from './mapping';
import markdown from './markdown';
import media from './media';
import pages from './pages';
import platformLogs from './platform-logs';
import posts from './posts';
import productCategories from './product-categories';
import products from './products';
import receipts from './receipts';
import revisions from './revisions';
import rolePermissions from './role-permissions';
import schedules from './schedules';
import settings from './settings';
import settingsOverview from './settings-overview';
import slugIndexes from './slug-indexes';
import taxonomy from './taxonomy';
import transactions from './transactions';
import uninstall from './uninstall';
import urls from './urls';
import versions from './versions';

export default {
  activity,
  'activity-writer': activityWriter,
  authors,
  availability,
  'blog-categories': blogCategories,
  categories,
  'connection-test': connectionTest,
  'content-access': contentAccess,
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
