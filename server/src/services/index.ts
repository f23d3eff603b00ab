import authors from './authors';
import blogCategories from './blog-categories';
import entities from './entities';
import handshake from './handshake';
import identities from './identities';
import pages from './pages';
import posts from './posts';
import productCategories from './product-categories';
import products from './products';
import settings from './settings';
import taxonomy from './taxonomy';
import transactions from './transactions';
import urls from './urls';

export default {
  authors,
  'blog-categories': blogCategories,
  entities,
  handshake,
  identities,
  pages,
  posts,
  'product-categories': productCategories,
  products,
  settings,
  taxonomy,
  transactions,
  urls,
};
