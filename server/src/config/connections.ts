import { z } from 'zod';
import { API_KEY_ENV } from '../constants';
import contentApi from '../routes/content-api';
import { canonicalPath } from '../utils/prefix-path';
import {
  capabilityChoicesSchema,
  contentOptionsSchema,
  contentTypesSchema,
  localeSchema,
  mediaSchema,
  pathSchema,
  richtextFormatSchema,
  siteSchema,
  timezoneSchema,
  urlTemplatesSchema,
} from './options';

/**
 * Connections: one base URL each, with its own key, locale and choices, for a site written by
 * several publishing projects (one per language, or one per platform). Without `connections` in
 * config, the site has the one connection it always had, named `default`, at `prefix`.
 */

export const DEFAULT_CONNECTION = 'default';

/** The first segments of the contract's routes: a connection named so would read as a route of another. */
const CONTRACT_SEGMENTS = new Set(contentApi.routes.map((route) => route.path.split('/')[1]));

const connectionName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, {
    error:
      'must be 1 to 32 lower-case letters, digits or "-", starting with a letter, such as "fr" or "partner-a"',
  })
  .refine((name) => !CONTRACT_SEGMENTS.has(name), {
    error: `must not be the name of a contract route (${[...CONTRACT_SEGMENTS].join(', ')})`,
  });

/**
 * What one connection may set; it inherits every other option from the top level. An object
 * option (capabilities, contentTypes, urlTemplates, site, content, media) is merged key by key with the top
 * level's, as Strapi merges a plugin's config with its defaults. What bounds the whole process
 * (body and lock limits, the pixels decoded at once, the logs, scheduling) stays the site's.
 */
export const connectionOptionsSchema = z
  .object({
    /** Its base URL's path; unset: `{prefix}/{name}`, and `{prefix}` itself for `default`. */
    path: pathSchema.optional(),
    locale: localeSchema.optional(),
    capabilities: capabilityChoicesSchema.optional(),
    /** Merged kind by kind: a connection mapping `post` elsewhere keeps the site's other kinds. */
    contentTypes: contentTypesSchema.optional(),
    timezone: timezoneSchema.optional(),
    urlTemplates: urlTemplatesSchema.optional(),
    site: siteSchema.optional(),
    richtextFormat: richtextFormatSchema.optional(),
    adoptExistingEntries: z.boolean().optional(),
    linkLocalizations: z.boolean().optional(),
    content: contentOptionsSchema.partial().optional(),
    media: mediaSchema.omit({ maxPixelsDecodingAtOnce: true }).partial().optional(),
  })
  .strict();

/** Names are checked one by one: zod's record would report a bad key as "Invalid key" alone. */
export const connectionsSchema = z
  .record(z.string(), connectionOptionsSchema)
  .superRefine((connections, context) => {
    for (const name of Object.keys(connections)) {
      for (const issue of connectionName.safeParse(name).error?.issues ?? [])
        context.addIssue({ code: 'custom', path: [name], message: issue.message });
    }
  });

export type ConnectionOptions = z.infer<typeof connectionOptionsSchema>;

/** What a connection changes of the top-level options: everything but where it lives. */
export type ConnectionOverrides = Omit<ConnectionOptions, 'path'>;

export type Connection = {
  name: string;
  /** Its base URL's path below the site's origin, as configured. */
  path: string;
  /** The environment variable that may hold its key (PUBLISH_BRIDGE_API_KEY for `default`). */
  keyVariable: string;
  overrides: ConnectionOverrides;
};

type ConnectionsConfig = { prefix: string; connections?: Record<string, ConnectionOptions> };

/** `PUBLISH_BRIDGE_API_KEY_<NAME>`, upper case, "-" as "_"; names have no "_", so no two share one. */
export const keyVariableOf = (name: string) =>
  name === DEFAULT_CONNECTION ? API_KEY_ENV : `${API_KEY_ENV}_${name.toUpperCase().replace(/-/g, '_')}`;

/** The site's connections, in the order config lists them. */
export function connectionsOf({ prefix, connections }: ConnectionsConfig): Connection[] {
  const entries = Object.entries(connections ?? {});
  if (entries.length === 0) {
    return [{ name: DEFAULT_CONNECTION, path: prefix, keyVariable: API_KEY_ENV, overrides: {} }];
  }
  return entries.map(([name, { path, ...overrides }]) => ({
    name,
    path: path ?? (name === DEFAULT_CONNECTION ? prefix : `${prefix}/${name}`),
    keyVariable: keyVariableOf(name),
    overrides,
  }));
}

/**
 * Paths two connections would share, or that Strapi's router would give to another
 * connection's route (`/x/posts` under a connection at `/x`), as config problems.
 */
export function connectionPathProblems(config: ConnectionsConfig): { name: string; message: string }[] {
  const connections = connectionsOf(config);
  const owners = new Map<string, string>();
  const problems: { name: string; message: string }[] = [];
  for (const { name, path } of connections) {
    const canonical = canonicalPath(path);
    const owner = owners.get(canonical);
    if (owner) problems.push({ name, message: `has the same path as connection "${owner}" (${path})` });
    owners.set(canonical, name);
  }
  for (const { name, path } of connections) {
    const canonical = canonicalPath(path);
    // Any connection above it whose own routes (`/posts/:id` …) would read the rest of the path.
    for (let end = canonical.lastIndexOf('/'); end > 0; end = canonical.lastIndexOf('/', end - 1)) {
      const ancestor = owners.get(canonical.slice(0, end));
      const segment = canonical.slice(end + 1).split('/')[0];
      if (ancestor && CONTRACT_SEGMENTS.has(segment)) {
        problems.push({
          name,
          message: `lies under connection "${ancestor}"'s /${segment} routes (${path}); choose another path`,
        });
        break;
      }
    }
  }
  return problems;
}

/**
 * The connection whose base URL a canonical path lies under, the longest such path winning
 * (a connection at `/api/pb/fr` beside one at `/api/pb`), with the part below it. One map look-up
 * per segment of the path: the cost does not grow with the number of connections.
 */
export function connectionLocator(connections: Connection[]) {
  const byPath = new Map(connections.map((connection) => [canonicalPath(connection.path), connection]));
  return (canonical: string): { connection: Connection; pathBelow: string } | undefined => {
    for (let end = canonical.length; end > 0; end = canonical.lastIndexOf('/', end - 1)) {
      const connection = byPath.get(canonical.slice(0, end));
      if (connection) return { connection, pathBelow: canonical.slice(end) };
    }
    return undefined;
  };
}
