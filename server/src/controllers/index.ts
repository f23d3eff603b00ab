import authors from './authors';
import blogCategories from './blog-categories';
import handshake from './handshake';
import pages from './pages';
import productCategories from './product-categories';
import products from './products';
import posts from './posts';

export default {
  authors,
  'blog-categories': blogCategories,
  handshake,
  pages,
  'product-categories': productCategories,
  products,
  posts,
};
