import type { Core } from '@strapi/strapi';
import type { ActivityItem, EntryLocation, Outcome } from '#contract/admin/common';
import type { RefusalAggregate } from './activity-aggregation';
import { fitColumn } from '../../utils/column-text';
import { getService } from '../../plugin';
import { contentTypeOf, rowsOf } from '../../database/schemas';
import { documentsOf } from '../../database/documents';
import { UIDS } from '../../constants';
import { DEFAULT_CONNECTION } from '../../config/connections';
import { inConnection } from '../../utils/connection-scope';
import { ContractError } from '../../contract/errors';

export const ACTIVITY_UID = UIDS.activityEntry;

/** Where an entry's title is read: its type's "entry title" field, in the locale the plugin writes. */
type TitleField = { mainField: string; locale?: string };

/** The contract's endpoints by the name the log gives them; any other request is logged as `unknown`. */
export const CONTRACT_ACTIONS = [
  'handshake',
  'posts.create',
  'posts.update',
  'posts.delete',
  'authors.create',
  'blog-categories.create',
  'blog-categories.delete',
  'products.update',
  'product-categories.create',
  'product-categories.list',
  'pages.list',
] as const;

/** The action of an aggregate row: refusals of requests that were not authenticated, counted per minute. */
export const UNAUTHENTICATED_ACTION = 'unauthenticated';
/** The action of a row the scheduler writes about a post's scheduled publish: no request asked for it then. */
export const SCHEDULED_PUBLISH_ACTION = 'scheduled-publish';
export const FILTERABLE_ACTIONS = [
  ...CONTRACT_ACTIONS,
  'unknown',
  UNAUTHENTICATED_ACTION,
  SCHEDULED_PUBLISH_ACTION,
] as const;

/** One answered request as the contract gate sees it; the body is read here, never stored. */
export type Exchange = {
  requestId: string;
  /** The connection the request came to. */
  connection: string;
  receivedAt: Date;
  method: string;
  path: string;
  /** The path after the configured prefix, e.g. `/posts/abc`. */
  pathUnderPrefix: string;
  status: number;
  body: unknown;
  routeId?: string;
  durationMs: number;
  /** What the site adjusted while storing the request (a field cut to fit, an image not imported). */
  notes?: string[];
};

/** A log row as it is written: the item the admin lists, before the database gave it an id. */
export type ActivityEntry = Omit<ActivityItem, 'id' | 'entry' | 'receivedAt' | 'lastSeenAt'> & {
  receivedAt: Date;
  lastSeenAt?: Date;
};

type ActivityRow = Omit<ActivityEntry, 'count'> & { id: number; count: number | null };

export type ActivityFilter = Partial<
  Record<'outcome' | 'action' | 'connection', Record<string, string | boolean>>
>;

/** Column widths: what a log row keeps of each value. */
export const ENTRY_LIMITS = {
  method: 16,
  path: 255,
  action: 64,
  entityId: 191,
  reason: 2_000,
  note: 500,
  notes: 20,
  refusal: 64,
  sourceAddress: 64,
};

/**
 * Rows written before the site had connections name none: they are `default`'s, the connection
 * that keeps what the site had, so asking for `default` finds them too.
 */
function withRowsBeforeConnections(filter: ActivityFilter) {
  const condition = filter.connection;
  if (condition?.$eq !== DEFAULT_CONNECTION) return filter;
  return { $or: [filter, { connection: { $null: true } }] };
}

/** Aggregates are written after their minute, so a row's id is not its place in time. */
const NEWEST_FIRST = [{ receivedAt: 'desc' }, { id: 'desc' }];

const ITEM_VERBS: Record<string, string> = { PUT: 'update', PATCH: 'update', DELETE: 'delete', GET: 'read' };
const COLLECTION_VERBS: Record<string, string> = { POST: 'create', GET: 'list' };

/**
 * `POST /posts` → `posts.create`, `DELETE /blog-categories/x` → `blog-categories.delete`. Read
 * from the path, not from the route Strapi's router matched (`ctx.state.route`): the gate answers
 * some requests before any route runs (a body that is not JSON), and the log still names them.
 */
export function actionOf(method: string, pathUnderPrefix: string): string {
  const segments = pathUnderPrefix.split('/').filter(Boolean);
  if (segments.length === 1 && segments[0] === 'handshake') return 'handshake';
  if (segments.length === 0 || segments.length > 2) return 'unknown';
  const verb = (segments.length === 1 ? COLLECTION_VERBS : ITEM_VERBS)[method.toUpperCase()];
  const action = `${segments[0]}.${verb}`;
  return (CONTRACT_ACTIONS as readonly string[]).includes(action) ? action : 'unknown';
}

export const outcomeOf = (status: number): Outcome =>
  status >= 500 ? 'error' : status >= 400 ? 'rejected' : 'success';

/** What the log keeps of an exchange: the `error` message of a failure and the entity id, nothing else of the body. */
export function entryOf(exchange: Exchange): ActivityEntry {
  const body = (typeof exchange.body === 'object' && exchange.body !== null ? exchange.body : {}) as {
    id?: unknown;
    error?: unknown;
  };
  const entityId = typeof body.id === 'string' ? body.id : exchange.routeId;
  const reason = exchange.status >= 400 && typeof body.error === 'string' ? body.error : undefined;
  return {
    receivedAt: exchange.receivedAt,
    requestId: exchange.requestId,
    connection: exchange.connection,
    method: fitColumn(exchange.method, ENTRY_LIMITS.method),
    path: fitColumn(exchange.path, ENTRY_LIMITS.path),
    action: actionOf(exchange.method, exchange.pathUnderPrefix),
    httpStatus: exchange.status,
    outcome: outcomeOf(exchange.status),
    entityId: entityId ? fitColumn(entityId, ENTRY_LIMITS.entityId) : undefined,
    durationMs: Math.max(0, Math.round(exchange.durationMs)),
    reason: reason ? fitColumn(reason, ENTRY_LIMITS.reason) : undefined,
    notes: exchange.notes?.length
      ? exchange.notes.slice(0, ENTRY_LIMITS.notes).map((note) => fitColumn(String(note), ENTRY_LIMITS.note))
      : undefined,
    count: 1,
  };
}

/**
 * One row for a scheduled publish that did not happen: `cancelled` (the editors decided, 409) or
 * `failed` (Strapi refused to publish, 500; tried again later), as the request that asked for it
 * would have been answered. The path names the post as the contract does.
 */
export function entryOfScheduledPublish(
  documentId: string,
  result: 'cancelled' | 'failed',
  reason: string,
  connection?: string
): ActivityEntry {
  const httpStatus = result === 'cancelled' ? 409 : 500;
  return {
    receivedAt: new Date(),
    connection,
    method: 'SCHEDULE',
    path: fitColumn(`/posts/${documentId}`, ENTRY_LIMITS.path),
    action: SCHEDULED_PUBLISH_ACTION,
    httpStatus,
    outcome: outcomeOf(httpStatus),
    entityId: fitColumn(documentId, ENTRY_LIMITS.entityId),
    reason: fitColumn(reason, ENTRY_LIMITS.reason),
    count: 1,
  };
}

/** One row for an aggregate of refusals; the method and path are the first refusal's, as a sample. */
export function entryOfAggregate(aggregate: RefusalAggregate): ActivityEntry {
  return {
    receivedAt: aggregate.firstAt,
    lastSeenAt: aggregate.lastAt,
    method: fitColumn(aggregate.method, ENTRY_LIMITS.method),
    path: fitColumn(aggregate.path, ENTRY_LIMITS.path),
    action: UNAUTHENTICATED_ACTION,
    httpStatus: aggregate.status,
    outcome: outcomeOf(aggregate.status),
    reason: fitColumn(aggregate.message, ENTRY_LIMITS.reason),
    count: aggregate.count,
    refusal: aggregate.reason,
    sourceAddress: aggregate.sourceAddress ?? undefined,
    connection: aggregate.connection,
  };
}

/**
 * The site-side log of contract requests, as the admin reads it (activity-writer.ts writes it):
 * newest first, filtered, each entry with the content it touched when that still exists.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => rowsOf<ActivityRow>(strapi, ACTIVITY_UID);
  /** The rows of the connection in scope, as a filter. */
  const inScope = () => ({ connection: { $eq: getService(strapi, 'connections').current().name } });

  /** documentId → the content type holding it, among the types the contract writes to. */
  async function locate(ids: string[]): Promise<Map<string, EntryLocation>> {
    const found = new Map<string, EntryLocation>();
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return found;
    for (const uid of candidateUids()) {
      const rows = await rowsOf<{ documentId: string }>(strapi, uid).findMany({
        where: { documentId: { $in: wanted } },
        select: ['documentId'],
      });
      for (const { documentId } of rows) found.set(documentId, { uid, documentId });
    }
    return found;
  }

  /**
   * `ids`' locations, each with its title where `userAbility`'s admin may read it, in the locale
   * `connection` writes (a document several connections write has a title per locale).
   */
  async function titled(
    located: Map<string, EntryLocation>,
    ids: string[],
    userAbility: unknown,
    connection?: string
  ): Promise<Map<string, EntryLocation>> {
    const entries = new Map<string, EntryLocation>();
    // One look-up of each type's title field for the page, however many of its entries it lists.
    const titleFields = new Map<string, Promise<TitleField | undefined>>();
    for (const id of new Set(ids)) {
      const found = located.get(id);
      if (!found) continue;
      const location: EntryLocation = { ...found };
      if (!titleFields.has(location.uid))
        titleFields.set(location.uid, titleFieldOf(location.uid, connection));
      const field = await titleFields.get(location.uid);
      const title = field && (await titleOf(location, field, userAbility));
      if (title) location.title = title;
      entries.set(id, location);
    }
    return entries;
  }

  /**
   * The type's title field as the Content Manager lists its entries ("entry title"), and the
   * locale `connection` writes it in (rows from before connections: `default`'s, else the first
   * connection's); none for a type the contract does not write to, or titled by id, nor where
   * that connection no longer writes the type or its locale is gone from the site: a title in
   * another locale would be another entry's, and the log must stay readable while the site is
   * being mended.
   */
  async function titleFieldOf(uid: string, connection?: string): Promise<TitleField | undefined> {
    const contentType = contentTypeOf(strapi, uid);
    const writers = getService(strapi, 'mapping')
      .everyResource()
      .filter(({ resource }) => resource.uid === uid);
    const writer =
      writers.find((candidate) => candidate.connection.name === (connection ?? DEFAULT_CONNECTION)) ??
      (connection === undefined ? writers[0] : undefined);
    if (!contentType || !writer) return undefined;
    const configuration = await strapi
      .plugin('content-manager')
      .service('content-types')
      .findConfiguration(contentType);
    const mainField: string | undefined = configuration?.settings?.mainField;
    if (!mainField || mainField === 'id' || mainField === 'documentId') return undefined;
    try {
      const { locale } = await inConnection(writer.connection, () =>
        getService(strapi, 'locales').scopeOf(writer.resource)
      );
      return { mainField, locale };
    } catch (error) {
      if (error instanceof ContractError) return undefined;
      throw error;
    }
  }

  /**
   * The entry's title, when the admin may read that field of that entry as the Content Manager
   * judges it (conditions such as "only their own entries" included).
   */
  async function titleOf(
    { uid, documentId }: EntryLocation,
    { mainField, locale }: TitleField,
    userAbility: unknown
  ) {
    const access = await getService(strapi, 'content-access').of(userAbility, uid, documentId, locale);
    if (!access?.mayRead()) return undefined;
    const entry = await documentsOf(strapi, uid).findOne({
      documentId,
      ...(locale ? { locale } : {}),
      fields: [mainField],
    });
    const shown = await access.readable({ [mainField]: entry?.[mainField] ?? null });
    const title = shown[mainField];
    return typeof title === 'string' || typeof title === 'number' ? String(title) : undefined;
  }

  /**
   * Where the contract's resources are stored: the plugin's own types, or the site's when mapped.
   * Only those the site has: the log must stay readable while a mapping names a type it lacks.
   */
  function candidateUids(): string[] {
    const mapping = getService(strapi, 'mapping');
    const resolved = getService(strapi, 'connections')
      .list()
      .flatMap((connection) => Object.values(mapping.resolve(connection).resources));
    return [...new Set(resolved.map((resource) => resource.uid))];
  }

  const toItem = (row: ActivityRow, entry?: EntryLocation): ActivityItem => ({
    id: row.id,
    receivedAt: new Date(row.receivedAt).toISOString(),
    requestId: row.requestId ?? undefined,
    method: row.method,
    path: row.path,
    action: row.action,
    httpStatus: row.httpStatus,
    outcome: row.outcome,
    entityId: row.entityId ?? undefined,
    durationMs: row.durationMs ?? undefined,
    reason: row.reason ?? undefined,
    notes: row.notes ?? undefined,
    count: row.count ?? 1,
    refusal: row.refusal ?? undefined,
    sourceAddress: row.sourceAddress ?? undefined,
    lastSeenAt: row.lastSeenAt ? new Date(row.lastSeenAt).toISOString() : undefined,
    connection: row.connection ?? undefined,
    ...(entry ? { entry } : {}),
  });

  return {
    locate,

    /** A page of the log, as `userAbility`'s admin may read the entries it names. */
    async list({
      page,
      pageSize,
      filters,
      userAbility,
    }: {
      page: number;
      pageSize: number;
      filters: ActivityFilter[];
      userAbility: unknown;
    }) {
      await getService(strapi, 'activity-writer').pruneIfDue();
      const { results, pagination } = await query().findPage({
        page,
        pageSize,
        where: filters.length > 0 ? { $and: filters.map(withRowsBeforeConnections) } : {},
        orderBy: NEWEST_FIRST,
      });
      // Each connection's rows are titled in its own locale; rows from before connections, in the first's.
      const located = await locate(results.flatMap((row) => (row.entityId ? [row.entityId] : [])));
      const entries = new Map<string | null, Map<string, EntryLocation>>();
      for (const connection of new Set(results.map((row) => row.connection ?? null))) {
        const ids = results.flatMap((row) =>
          row.entityId && (row.connection ?? null) === connection ? [row.entityId] : []
        );
        entries.set(connection, await titled(located, ids, userAbility, connection ?? undefined));
      }
      return {
        results: results.map((row) =>
          toItem(row, row.entityId ? entries.get(row.connection ?? null)?.get(row.entityId) : undefined)
        ),
        pagination,
      };
    },

    /**
     * The newest request of the connection in scope that named `entityId` (a document's id): its
     * last delivery there (the scheduler's rows are none). Another connection's, of another
     * locale of the document, is that connection's to show.
     */
    async latestFor(entityId: string): Promise<ActivityItem | undefined> {
      const row = (await query().findOne({
        where: {
          $and: [
            { entityId, action: { $ne: SCHEDULED_PUBLISH_ACTION } },
            withRowsBeforeConnections(inScope()),
          ],
        },
        orderBy: NEWEST_FIRST,
      })) as ActivityRow | null;
      return row ? toItem(row) : undefined;
    },

    /** The newest request the site answered on the connection in scope; the scheduler's rows answer none. */
    async latest(): Promise<ActivityItem | undefined> {
      const row = (await query().findOne({
        where: {
          $and: [{ action: { $ne: SCHEDULED_PUBLISH_ACTION } }, withRowsBeforeConnections(inScope())],
        },
        orderBy: NEWEST_FIRST,
      })) as ActivityRow | null;
      return row ? toItem(row) : undefined;
    },
  };
};
