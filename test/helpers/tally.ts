import fs from 'node:fs';
import path from 'node:path';
import { testDatabaseClient } from './databases';

/**
 * Appends what a robustness test did (requests sent, duplicates found, 5xx answers) to
 * test/artifacts/robustness-<db>.jsonl, the source of the per-database figures in issue 6.
 * The assertions live in the tests; this only records.
 */
const ARTIFACTS = path.resolve(__dirname, '..', 'artifacts');

export type Tally = {
  test: string;
  requests: number;
  duplicates?: number;
  serverErrors?: number;
  /** Rejections that Strapi's own code left unhandled (see faults.test.ts). */
  upstreamUnhandledRejections?: number;
};

export function recordTally(tally: Tally) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const db = testDatabaseClient();
  const line = JSON.stringify({ db, at: new Date().toISOString(), ...tally });
  fs.appendFileSync(path.join(ARTIFACTS, `robustness-${db}.jsonl`), `${line}\n`);
}

export const serverErrorsIn = (replies: { status: number }[]) =>
  replies.filter((reply) => reply.status >= 500).length;
