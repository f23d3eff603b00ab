import { useQueryParams } from '@strapi/strapi/admin';

/**
 * The connection the settings page shows and changes (`?connection=` in its address, so a link or
 * a reload keeps it); none: the site's first, its only one unless config lists several.
 */
export const useSelectedConnection = (): string | undefined => {
  const [{ query }] = useQueryParams<{ connection?: string }>();
  return query.connection || undefined;
};
