import adminActivity from './admin-activity';
import adminConnectionTest from './admin-connection-test';
import adminPlatformLogs from './admin-platform-logs';
import adminRevisions from './admin-revisions';
import adminSettings from './admin-settings';
import authors from './authors';
import blogCategories from './blog-categories';
import handshake from './handshake';
import pages from './pages';
import productCategories from './product-categories';
import products from './products';
import posts from './posts';

export default {
  'admin-activity': adminActivity,
  'admin-connection-test': adminConnectionTest,
  'admin-platform-logs': adminPlatformLogs,
  'admin-revisions': adminRevisions,
  'admin-settings': adminSettings,
  authors,
  'blog-categories': blogCategories,
  handshake,
  pages,
  'product-categories': productCategories,
  products,
  posts,
};
