import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import type { ActivityItem, EntryLocation, Outcome } from '../contract/admin-api';
import { RESOURCE_KINDS } from '../mapping/catalogue';
import { createRefusalTally, type Refusal, type RefusalAggregate } from './activity-aggregation';
import { fitColumn } from '../utils/column-text';
import { getService, pluginConfig } from '../plugin';
import { rowsOf } from '../database/schemas';

export const ACTIVITY_UID = 'plugin::publish-bridge.activity-entry';

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
export const FILTERABLE_ACTIONS = [...CONTRACT_ACTIONS, 'unknown', UNAUTHENTICATED_ACTION] as const;

/** One answered request as the contract gate sees it; the body is read here, never stored. */
export type Exchange = {
  requestId: string;
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

export type ActivityFilter = Partial<Record<'outcome' | 'action', Record<string, string | boolean>>>;

const BATCH_WINDOW_MS = 200;
const MAX_BATCH = 100;
/** While the database refuses writes, entries wait in memory up to this many; older ones are dropped. */
const MAX_QUEUED = 5_000;
const PRUNE_INTERVAL_MS = 60 * 60_000;
/** A minute's aggregates are written this long after it ends, so refusals answered at its very end are in. */
const MINUTE_END_GRACE_MS = 1_000;
const DAY_MS = 24 * 3_600_000;
/** Rows of refusal counts kept beside `maxEntries` deliveries: a tenth as many, at least 100. */
const refusalBudget = (maxEntries: number) => Math.max(100, Math.floor(maxEntries / 10));
const LIMITS = {
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

/** Aggregates are written after their minute, so a row's id is not its place in time. */
const NEWEST_FIRST = [{ receivedAt: 'desc' }, { id: 'desc' }];

const ITEM_VERBS: Record<string, string> = { PUT: 'update', PATCH: 'update', DELETE: 'delete', GET: 'read' };
const COLLECTION_VERBS: Record<string, string> = { POST: 'create', GET: 'list' };

/** `POST /posts` → `posts.create`, `DELETE /blog-categories/x` → `blog-categories.delete`. */
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
    method: fitColumn(exchange.method, LIMITS.method),
    path: fitColumn(exchange.path, LIMITS.path),
    action: actionOf(exchange.method, exchange.pathUnderPrefix),
    httpStatus: exchange.status,
    outcome: outcomeOf(exchange.status),
    entityId: entityId ? fitColumn(entityId, LIMITS.entityId) : undefined,
    durationMs: Math.max(0, Math.round(exchange.durationMs)),
    reason: reason ? fitColumn(reason, LIMITS.reason) : undefined,
    notes: exchange.notes?.length
      ? exchange.notes.slice(0, LIMITS.notes).map((note) => fitColumn(String(note), LIMITS.note))
      : undefined,
    count: 1,
  };
}

/** One row for an aggregate of refusals; the method and path are the first refusal's, as a sample. */
export function entryOfAggregate(aggregate: RefusalAggregate): ActivityEntry {
  return {
    receivedAt: aggregate.firstAt,
    lastSeenAt: aggregate.lastAt,
    method: fitColumn(aggregate.method, LIMITS.method),
    path: fitColumn(aggregate.path, LIMITS.path),
    action: UNAUTHENTICATED_ACTION,
    httpStatus: aggregate.status,
    outcome: outcomeOf(aggregate.status),
    reason: fitColumn(aggregate.message, LIMITS.reason),
    count: aggregate.count,
    refusal: aggregate.reason,
    sourceAddress: aggregate.sourceAddress ?? undefined,
  };
}

/**
 * The site-side log of contract requests. Entries are queued and written in batches after
 * the answer has gone, so a slow or failing database never delays or fails the request
 * being logged. Retention is bounded by count and age (plugin config `activityLog`).
 * Unauthenticated refusals are counted in memory (activity-aggregation.ts) and written as one
 * row per minute, reason and address once their minute has ended, or at a forced `flush()`.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => rowsOf<ActivityRow>(strapi, ACTIVITY_UID);
  const config = () => pluginConfig(strapi).activityLog;

  let queue: ActivityEntry[] = [];
  const refusals = createRefusalTally();
  let timer: NodeJS.Timeout | undefined;
  let minuteTimer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let writtenSincePrune = 0;
  let lastPruneAt = 0;

  function schedule(delayMs: number) {
    if (timer) {
      if (delayMs > 0) return;
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = undefined;
      void write({ openMinutes: false });
    }, delayMs);
    timer.unref?.();
  }

  /** Wakes up when the earliest counted minute has ended, so its aggregates are written without new traffic. */
  function scheduleMinuteEnd() {
    const end = refusals.nextMinuteEnd();
    if (minuteTimer || !end) return;
    minuteTimer = setTimeout(
      () => {
        minuteTimer = undefined;
        void write({ openMinutes: false }).then(scheduleMinuteEnd);
      },
      Math.max(0, end.getTime() - Date.now()) + MINUTE_END_GRACE_MS
    );
    minuteTimer.unref?.();
  }

  function enqueue(entries: ActivityEntry[]) {
    queue.push(...entries);
    if (queue.length > MAX_QUEUED) queue = queue.slice(queue.length - MAX_QUEUED);
  }

  /** Knex drops its pool on `strapi.destroy()`; a batch due after that has nowhere to go. */
  const databaseClosed = () =>
    !(strapi.db?.connection as { client?: { pool?: unknown } } | undefined)?.client?.pool;

  async function writeQueued() {
    if (databaseClosed()) {
      if (queue.length > 0)
        strapi.log.debug(`[${PLUGIN_ID}] ${queue.length} activity log entries dropped at shutdown`);
      queue = [];
      return;
    }
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      try {
        await query().createMany({ data: batch });
        writtenSincePrune += batch.length;
      } catch (error) {
        const { written, refusal } = await writeOneByOne(batch);
        if (written === 0) {
          strapi.log.warn(
            `[${PLUGIN_ID}] could not write ${batch.length} activity log entries (kept for the next attempt): ${(error as Error).message}`
          );
          return;
        }
        writtenSincePrune += written;
        strapi.log.warn(
          `[${PLUGIN_ID}] dropped ${batch.length - written} activity log entries the database refused: ${refusal}`
        );
      }
      queue = queue.slice(batch.length);
    }
    const { maxEntries } = config();
    if (writtenSincePrune >= Math.max(50, Math.floor(maxEntries / 10)) || pruneIsDue()) await prune();
  }

  /**
   * When a batch fails, either the database is away (no entry goes in: all are kept) or it
   * refuses some entries (the others go in, and the refused ones are dropped rather than
   * holding back every later entry forever).
   */
  async function writeOneByOne(batch: ActivityEntry[]) {
    let written = 0;
    let refusal = '';
    for (const entry of batch) {
      try {
        await query().create({ data: entry });
        written += 1;
      } catch (error) {
        refusal ||= (error as Error).message;
      }
    }
    return { written, refusal };
  }

  /**
   * Writes what is queued and the aggregates of ended minutes; with `openMinutes`, those of the
   * current minute too (a later refusal in that minute starts a new aggregate: two rows, no lost count).
   */
  function write({ openMinutes }: { openMinutes: boolean }): Promise<void> {
    const run = () => {
      enqueue(refusals.take(openMinutes ? undefined : new Date()).map(entryOfAggregate));
      return writeQueued();
    };
    writing = writing.then(run, run);
    return writing;
  }

  /** Writes everything recorded so far; resolves once it is stored (or the attempt failed and was logged). */
  const flush = () => write({ openMinutes: true });

  const pruneIsDue = () => Date.now() - lastPruneAt > PRUNE_INTERVAL_MS;

  /** Deletes all but the newest `count` rows that match `where`. */
  async function keepNewest(where: Record<string, unknown>, count: number) {
    const [oldestKept] = (await query().findMany({
      where,
      select: ['id'],
      orderBy: { id: 'desc' },
      offset: count - 1,
      limit: 1,
    })) as { id: number }[];
    if (oldestKept) await query().deleteMany({ where: { ...where, id: { $lt: oldestKept.id } } });
  }

  /**
   * Deliveries and refusal counts have separate budgets: however many counts strangers cause
   * (each minute, reason and address of theirs can add one), they only ever push out older counts.
   */
  async function prune() {
    const { maxEntries, maxAgeDays } = config();
    lastPruneAt = Date.now();
    writtenSincePrune = 0;
    try {
      await query().deleteMany({
        where: { receivedAt: { $lt: new Date(Date.now() - maxAgeDays * DAY_MS) } },
      });
      await keepNewest({ action: { $ne: UNAUTHENTICATED_ACTION } }, maxEntries);
      await keepNewest({ action: UNAUTHENTICATED_ACTION }, refusalBudget(maxEntries));
    } catch (error) {
      strapi.log.warn(`[${PLUGIN_ID}] could not prune the activity log: ${(error as Error).message}`);
    }
  }

  /** documentId → the content type holding it, among the types the contract writes to. */
  async function locate(ids: string[]): Promise<Map<string, EntryLocation>> {
    const found = new Map<string, EntryLocation>();
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return found;
    for (const uid of candidateUids()) {
      const rows = await rowsOf(strapi, uid).findMany({
        where: { documentId: { $in: wanted } },
        select: ['documentId'],
      });
      for (const { documentId } of rows) found.set(documentId, { uid, documentId });
    }
    return found;
  }

  /** Where the contract's resources are stored: the plugin's own types, or the site's when mapped. */
  function candidateUids(): string[] {
    const mapping = getService(strapi, 'mapping');
    return [...new Set(RESOURCE_KINDS.map((kind) => mapping.resource(kind).uid as string))];
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
    ...(entry ? { entry } : {}),
  });

  return {
    /** Queues an exchange for the log. Never throws and never waits for the database. */
    record(exchange: Exchange) {
      try {
        enqueue([entryOf(exchange)]);
        schedule(queue.length >= MAX_BATCH ? 0 : BATCH_WINDOW_MS);
      } catch (error) {
        strapi.log.warn(`[${PLUGIN_ID}] could not queue an activity log entry: ${(error as Error).message}`);
      }
    },

    /**
     * Counts a refusal of a request that was not authenticated; anyone can send those, so they
     * are aggregated instead of taking a row each. Never throws and never waits for the database.
     */
    recordRefusal(refusal: Refusal) {
      try {
        refusals.add({
          ...refusal,
          reason: fitColumn(refusal.reason, LIMITS.refusal),
          sourceAddress: fitColumn(refusal.sourceAddress || 'unknown', LIMITS.sourceAddress),
        });
        scheduleMinuteEnd();
      } catch (error) {
        strapi.log.warn(`[${PLUGIN_ID}] could not count a refused request: ${(error as Error).message}`);
      }
    },

    flush,

    prune,

    locate,

    async list({ page, pageSize, filters }: { page: number; pageSize: number; filters: ActivityFilter[] }) {
      if (pruneIsDue()) await prune();
      const { results, pagination } = await query().findPage({
        page,
        pageSize,
        where: filters.length > 0 ? { $and: filters } : {},
        orderBy: NEWEST_FIRST,
      });
      const entries = await locate(
        results.map((row) => row.entityId).filter((id): id is string => Boolean(id))
      );
      return {
        results: results.map((row) => toItem(row, row.entityId ? entries.get(row.entityId) : undefined)),
        pagination,
      };
    },

    async latest(): Promise<ActivityItem | undefined> {
      const row = (await query().findOne({ orderBy: NEWEST_FIRST })) as ActivityRow | null;
      return row ? toItem(row) : undefined;
    },
  };
};
