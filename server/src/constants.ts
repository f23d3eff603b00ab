export const PLUGIN_ID = 'publish-bridge';

/** Content types the plugin owns; a site may map resources onto its own types instead. */
export const UIDS = {
  post: 'plugin::publish-bridge.post',
  blogCategory: 'plugin::publish-bridge.blog-category',
  tag: 'plugin::publish-bridge.tag',
  author: 'plugin::publish-bridge.author',
  product: 'plugin::publish-bridge.product',
  productCategory: 'plugin::publish-bridge.product-category',
  identity: 'plugin::publish-bridge.identity',
  managedEntry: 'plugin::publish-bridge.managed-entry',
  revision: 'plugin::publish-bridge.revision',
  activityEntry: 'plugin::publish-bridge.activity-entry',
  requestReceipt: 'plugin::publish-bridge.request-receipt',
} as const;

/** The upload plugin's files: the Media Library, where the plugin's imported images go. */
export const FILE_UID = 'plugin::upload.file';

export const API_KEY_ENV = 'PUBLISH_BRIDGE_API_KEY';

/** A shorter connection key could be guessed; the publisher's keys are far longer. */
export const MIN_KEY_LENGTH = 16;
