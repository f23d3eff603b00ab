import post from './post';
import blogCategory from './blog-category';
import tag from './tag';
import author from './author';
import product from './product';
import productCategory from './product-category';
import identity from './identity';

export default {
  post,
  'blog-category': blogCategory,
  tag,
  author,
  product,
  'product-category': productCategory,
  identity,
};
