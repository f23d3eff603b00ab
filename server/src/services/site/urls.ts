import type { Core } from '@strapi/strapi';
import type { PageType } from '../../contract/responses';
import { pluginConfig } from '../../plugin';

/** What Strapi's Preview handler is given (`config/admin.ts` `preview.config.handler`). */
type PreviewParams = { documentId: string; locale?: string; status: 'draft' };
type PreviewHandler = (uid: string, params: PreviewParams) => unknown;

/** The part of the Content Manager's `preview-config` service the plugin relies on (Strapi >= 5.13). */
type PreviewConfig = { isEnabled?: () => boolean };

/** A handler that hangs would hold the platform's request; Strapi's own panel also gives up on it. */
const PREVIEW_TIME_LIMIT_MS = 5_000;

/** A draft's preview link, or why there is none (a note for the activity log). */
export type DraftUrl = { url: string } | { note: string };

const isOpenable = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/**
 * Public URLs from the site's templates, e.g. "https://example.com/blog/{slug}", and a draft's
 * preview URL from Strapi's Preview, where the site configured it.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const templates = () => pluginConfig(strapi).urlTemplates;

  /**
   * The handler Strapi's Preview would call, by the Content Manager's own rule (a `preview` key
   * whose `enabled` is not false), read at each call so the site's config is what counts. A
   * Strapi without Preview has no such service: the feature is then off.
   */
  function previewHandler(): PreviewHandler | undefined {
    const service = strapi.service('plugin::content-manager.preview-config') as PreviewConfig | undefined;
    if (typeof service?.isEnabled !== 'function' || !service.isEnabled()) return undefined;
    const handler = strapi.config.get<{ config?: { handler?: unknown } }>('admin.preview')?.config?.handler;
    return typeof handler === 'function' ? (handler as PreviewHandler) : undefined;
  }

  return {
    hasTemplate: (type: PageType) => Boolean(templates()[type]),

    urlFor(type: PageType, entity: { documentId: string; slug?: string | null }): string | undefined {
      const template = templates()[type];
      if (!template) return undefined;
      return template
        .replaceAll('{slug}', encodeURIComponent(entity.slug ?? entity.documentId))
        .replaceAll('{id}', encodeURIComponent(entity.documentId));
    },

    hasPreview: () => previewHandler() !== undefined,

    /**
     * The URL Strapi's Preview handler builds for the document's draft, called as the Content
     * Manager calls it. Runs outside any transaction of the plugin's: a handler typically reads
     * the entry through the Document Service, which on SQLite's one connection would wait for the
     * transaction holding it. A handler that throws, hangs, or builds no http(s) URL gives a note.
     */
    async draftUrl(uid: string, documentId: string, locale?: string): Promise<DraftUrl | undefined> {
      const handler = previewHandler();
      if (!handler) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${PREVIEW_TIME_LIMIT_MS / 1000} s`)),
          PREVIEW_TIME_LIMIT_MS
        );
      });
      try {
        const built = await Promise.race([handler(uid, { documentId, locale, status: 'draft' }), limit]);
        if (isOpenable(built)) return { url: built };
        return { note: "Strapi's Preview handler built no URL for the draft, so url is its public URL." };
      } catch (error) {
        const cause = (error as Error)?.message ?? String(error);
        return { note: `Strapi's Preview handler failed (${cause}), so url is the draft's public URL.` };
      } finally {
        clearTimeout(timer);
      }
    },
  };
};
