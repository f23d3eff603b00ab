import post from './post';
import blogCategory from './blog-category';
import tag from './tag';
import author from './author';
import product from './product';
import productCategory from './product-category';
import identity from './identity';
import activityEntry from './activity-entry';
import requestReceipt from './request-receipt';
import managedEntry from './managed-entry';
import revision from './revision';

export default {
  post,
  'blog-category': blogCategory,
  tag,
  author,
  product,
  'product-category': productCategory,
  identity,
  'activity-entry': activityEntry,
  'request-receipt': requestReceipt,
  'managed-entry': managedEntry,
  revision,
};
