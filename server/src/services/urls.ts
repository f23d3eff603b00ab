import type { Core } from '@strapi/strapi';
import type { PluginConfig } from '../config';
import { pluginConfig } from '../plugin';

export type PageType = keyof PluginConfig['urlTemplates'];

/** Public URLs from the site's templates, e.g. "https://example.com/blog/{slug}". */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const templates = () => pluginConfig(strapi).urlTemplates;
  return {
    hasTemplate: (type: PageType) => Boolean(templates()[type]),

    urlFor(type: PageType, entity: { documentId: string; slug?: string | null }): string | undefined {
      const template = templates()[type];
      if (!template) return undefined;
      return template
        .replaceAll('{slug}', encodeURIComponent(entity.slug ?? entity.documentId))
        .replaceAll('{id}', encodeURIComponent(entity.documentId));
    },
  };
};
