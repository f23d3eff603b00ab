/**
 * Unauthenticated refusals are counted, not logged one by one: anyone can send them, and one
 * row each would let a stranger push every real delivery out of the count-bounded log. They
 * are summed per minute, reason and source address; past a cap of addresses in a minute, the
 * rest of that minute folds into one aggregate per reason, so even random (or forged
 * X-Forwarded-For) addresses add a bounded number of rows per minute.
 */

export const MINUTE_MS = 60_000;
/** Distinct (reason, address) aggregates a minute may open before further addresses fold together. */
export const DEFAULT_MAX_ADDRESSES_PER_MINUTE = 100;

/** One refusal of a request that was not authenticated, as the contract gate answered it. */
export type Refusal = {
  at: Date;
  /** The connection whose base URL the request was sent to, when one is known: each counts its own. */
  connection?: string;
  /** Why, as a code: an `AuthFailureReason` of contract/signature.ts, or what else the gate passes. */
  reason: string;
  sourceAddress: string;
  method: string;
  path: string;
  status: number;
  /** The answer's `error` message. */
  message: string;
};

/** The refusals of one minute, reason and address; `sourceAddress` null stands for the folded "other addresses". */
export type RefusalAggregate = {
  minute: number;
  connection?: string;
  reason: string;
  sourceAddress: string | null;
  count: number;
  firstAt: Date;
  lastAt: Date;
  /** The first refusal's request and answer, as a sample of what was sent. */
  method: string;
  path: string;
  status: number;
  message: string;
};

export const minuteOf = (at: Date) => Math.floor(at.getTime() / MINUTE_MS);

const keyOf = (
  minute: number,
  connection: string | undefined,
  reason: string,
  sourceAddress: string | null
) => JSON.stringify([minute, connection ?? null, reason, sourceAddress]);

/**
 * Aggregates refusals in memory until they are taken for writing. Rows per minute stay under
 * `maxAddressesPerMinute` plus the number of distinct reasons (a closed set in the gate's code),
 * per `take()` of that minute.
 */
// Over 50 lines: its methods, each short, share the two maps of open aggregates.
export function createRefusalTally({ maxAddressesPerMinute = DEFAULT_MAX_ADDRESSES_PER_MINUTE } = {}) {
  const aggregates = new Map<string, RefusalAggregate>();
  /** Aggregates of a known address opened in each minute, to know when to fold. */
  const addressesPerMinute = new Map<number, number>();

  function aggregateFor(minute: number, { connection, reason, sourceAddress }: Refusal) {
    const ownKey = keyOf(minute, connection, reason, sourceAddress);
    const own = aggregates.get(ownKey);
    if (own) return { key: ownKey, existing: own, sourceAddress };
    const opened = addressesPerMinute.get(minute) ?? 0;
    if (opened < maxAddressesPerMinute) {
      addressesPerMinute.set(minute, opened + 1);
      return { key: ownKey, existing: undefined, sourceAddress };
    }
    const key = keyOf(minute, connection, reason, null);
    return { key, existing: aggregates.get(key), sourceAddress: null };
  }

  return {
    add(refusal: Refusal) {
      const minute = minuteOf(refusal.at);
      const { key, existing, sourceAddress } = aggregateFor(minute, refusal);
      if (existing) {
        existing.count += 1;
        if (refusal.at > existing.lastAt) existing.lastAt = refusal.at;
        if (refusal.at < existing.firstAt) existing.firstAt = refusal.at;
        return;
      }
      const { at, connection, reason, method, path, status, message } = refusal;
      aggregates.set(key, {
        minute,
        connection,
        reason,
        sourceAddress,
        count: 1,
        firstAt: at,
        lastAt: at,
        method,
        path,
        status,
        message,
      });
    },

    /**
     * Removes and returns the aggregates of minutes ended before `now`, or all of them without
     * `now` (a forced flush). A minute taken early starts counting afresh: later refusals in it
     * make new aggregates, and no count is lost.
     */
    take(now?: Date): RefusalAggregate[] {
      const before = now === undefined ? Infinity : minuteOf(now);
      const taken: RefusalAggregate[] = [];
      for (const [key, aggregate] of aggregates) {
        if (aggregate.minute >= before) continue;
        taken.push(aggregate);
        aggregates.delete(key);
      }
      for (const minute of addressesPerMinute.keys()) if (minute < before) addressesPerMinute.delete(minute);
      return taken.sort((a, b) => a.firstAt.getTime() - b.firstAt.getTime());
    },

    /** When the earliest held minute ends, or undefined when nothing is held. */
    nextMinuteEnd(): Date | undefined {
      let earliest = Infinity;
      for (const aggregate of aggregates.values()) earliest = Math.min(earliest, aggregate.minute);
      return earliest === Infinity ? undefined : new Date((earliest + 1) * MINUTE_MS);
    },
  };
}

export type RefusalTally = ReturnType<typeof createRefusalTally>;
