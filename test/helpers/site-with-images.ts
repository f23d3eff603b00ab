import { startImageServer, type ImageServer } from './image-server';
import { removeUploadedFiles } from './inspect';
import { startSite, type Site } from './site';

export type SiteWithImages = { site: Site; images: ImageServer; stop(): Promise<void> };

/**
 * A site that imports images from the test's own image server (on the loopback address, which
 * `media.allowedHosts` lets through). `stop` deletes the files the site uploaded, then stops both.
 */
export async function startSiteWithImages(env: Record<string, string> = {}): Promise<SiteWithImages> {
  const images = await startImageServer();
  let site: Site;
  try {
    site = await startSite({ PUBLISH_BRIDGE_MEDIA_ALLOWED_HOSTS: '127.0.0.1', ...env });
  } catch (error) {
    await images.stop();
    throw error;
  }
  return {
    site,
    images,
    async stop() {
      await removeUploadedFiles(site.strapi);
      await site.stop();
      await images.stop();
    },
  };
}
