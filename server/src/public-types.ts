/**
 * The package's root entry, types only: what a site's config/plugins.ts checks its options
 * against, without loading the server's own types.
 */
export type { PublishBridgeConfig, PublishBridgeContentTypeMapping } from './config';
