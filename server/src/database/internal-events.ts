import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';

/**
 * Keeps the Document Service events of the plugin's own internal steps (a temporary row it creates,
 * writes and deletes inside one transaction) from Strapi's event hub, so the site's webhooks, and
 * a search index or CDN purge behind them, never hear of a row that only existed mid-transaction.
 *
 * Strapi offers no way to write without events, and its internals that do (the entries service)
 * are not exported; re-doing its component and relation copies with the Query Engine would fork
 * Strapi. So the events are dropped, and only those: the Document Service emits each one from a
 * callback it registers with `onCommit` (events.js), run after the outermost transaction commits,
 * in the commit's async context, not in that of the call that caused it. An AsyncLocalStorage
 * around the call would not reach it. What does reach it: nested transactions share one list of
 * commit callbacks (@strapi/database transaction-context.js), run in order in one synchronous
 * loop. A callback registered before the internal step enters the "internal" context, so the
 * Document Service's callbacks that follow run, and emit, in it; one registered after leaves it.
 */
const internalEmission = new AsyncLocalStorage<boolean>();

/** Drops the events emitted in the internal context; every other event passes unchanged. */
export function dropInternalEvents(strapi: Core.Strapi): void {
  const eventHub = strapi.eventHub as { emit(eventName: string, ...args: unknown[]): Promise<void> };
  const emit = eventHub.emit.bind(eventHub);
  eventHub.emit = async (eventName, ...args) => {
    if (internalEmission.getStore()) return;
    await emit(eventName, ...args);
  };
}

/** Runs `step`, whose Document Service events must not be heard, in the caller's transaction. */
export async function withoutEvents<T>(strapi: Core.Strapi, step: () => Promise<T>): Promise<T> {
  // Outside a transaction each call would commit, and emit, on its own, before the marks.
  if (!strapi.db.inTransaction()) throw new Error('withoutEvents needs a transaction to join');
  await markFollowingCommitCallbacks(strapi, true);
  try {
    return await step();
  } finally {
    await markFollowingCommitCallbacks(strapi, false);
  }
}

function markFollowingCommitCallbacks(strapi: Core.Strapi, internal: boolean) {
  return strapi.db.transaction(async ({ onCommit }) => {
    // enterWith lasts for the rest of the synchronous loop that runs the callbacks.
    onCommit(() => internalEmission.enterWith(internal));
  });
}
