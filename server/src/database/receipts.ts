import type { Core } from '@strapi/strapi';
import receipt from '../content-types/request-receipt';
import type { Knex, Trx } from './knex';
import { storedInstant, tableOf } from './tables';
import { UIDS } from '../constants';

const RECEIPT_UID = UIDS.requestReceipt;
/** Receipts deleted per statement by a prune: far below every database's limit on parameters. */
const IDS_PER_DELETE = 500;
/** The unique index on the receipts' fingerprints, by which a batch of answers finds its rows. */
const FINGERPRINT_INDEX = receipt.schema.indexes.find((index) => index.type === 'unique')!.name;

/** The answer status a receipt keeps for a write that failed with a 5xx: nothing was written, the same request may run again. */
export const FAILED = 0;
/** Answers kept per statement: eleven parameters each, far below every database's limit. */
export const ANSWERS_PER_STATEMENT = 200;
/**
 * And bytes of answers per statement: MySQL and MariaDB refuse a statement larger than their
 * max_allowed_packet (16 MB by default, 4 MB on older servers) and drop the connection.
 */
export const ANSWER_BYTES_PER_STATEMENT = 1_000_000;

/** Who holds a receipt, and the answer kept for it (none while its write runs). */
export type Holder = { claimant: string; status: number | null; answer: string | null };
/** An answer to keep on the receipt its claimant holds. */
export type AnswerToKeep = { fingerprint: string; claimant: string; status: number; answer: string | null };
/** A receipt as a write claims it. */
export type NewReceipt = { fingerprint: string; claimant: string; expiresAt: Date };

/**
 * The request receipts' table: every statement `services/delivery/receipts.ts` runs on it, with the
 * dialects' differences. A statement given a transaction runs in it; the others run on the
 * site's connection, each on its own.
 */
// Over 50 lines: a repository factory; its statements, each short, share strapi through this closure.
export function requestReceipts(strapi: Core.Strapi) {
  const table = () => tableOf(strapi, RECEIPT_UID);
  const rows = (knex: Knex = strapi.db.connection) => knex(table().name);
  const mysql = () => strapi.db.dialect.client === 'mysql';

  return {
    /**
     * Deletes the receipts that expired before `instant`: found by a plain read, which locks
     * nothing, then deleted by id. A DELETE by expiry on MySQL and MariaDB locks every receipt it
     * reads (all of them, where a small table is read whole) and the first one past the expired
     * ones, so it waited for writes still running, and their claims waited for it.
     */
    async deleteExpiredBefore(instant: Date): Promise<void> {
      const { column } = table();
      const expired: number[] = await rows()
        .where(column('expiresAt'), '<', storedInstant(strapi, instant))
        .pluck('id');
      for (let start = 0; start < expired.length; start += IDS_PER_DELETE) {
        await rows()
          .whereIn('id', expired.slice(start, start + IDS_PER_DELETE))
          .delete();
      }
    },

    async holderOf(fingerprint: string, trx?: Trx): Promise<Holder | undefined> {
      const { column } = table();
      return rows(trx)
        .first({ claimant: column('claimant'), status: column('httpStatus'), answer: column('answer') })
        .where(column('fingerprint'), fingerprint);
    },

    /**
     * Inserts the receipt unless one with its fingerprint is there, as the first statement of a
     * write's transaction; on PostgreSQL and MySQL a concurrent twin waits here for the first
     * transaction to end. True when the database says it inserted it: a new receipt, the usual
     * case, costs this one statement. MySQL and MariaDB say it by the rows the INSERT IGNORE
     * affected, which knex's insert does not hand on: it runs as a raw statement there.
     */
    async insertIfAbsent(trx: Trx, { fingerprint, claimant, expiresAt }: NewReceipt): Promise<boolean> {
      const { column } = table();
      const insert = rows(trx)
        .insert({
          [column('fingerprint')]: fingerprint,
          [column('claimant')]: claimant,
          [column('expiresAt')]: storedInstant(strapi, expiresAt),
        })
        .onConflict(column('fingerprint'))
        .ignore();
      if (mysql()) {
        const { sql, bindings } = insert.toSQL();
        const [result] = (await trx.raw(sql, bindings)) as [{ affectedRows: number }];
        return result.affectedRows === 1;
      }
      return (await insert.returning(column('claimant'))).length > 0;
    },

    /** Gives the receipt `from` holds to `to`, its answer cleared; the number of receipts changed. */
    async takeOver(trx: Trx, fingerprint: string, from: string, to: string): Promise<number> {
      const { column } = table();
      return rows(trx)
        .where({ [column('fingerprint')]: fingerprint, [column('claimant')]: from })
        .update({ [column('claimant')]: to, [column('httpStatus')]: null });
    },

    /** Marks the receipt `claimant` holds as its write failed (FAILED), with no answer. */
    async markFailed(fingerprint: string, claimant: string): Promise<void> {
      const { column } = table();
      await rows()
        .where({ [column('fingerprint')]: fingerprint, [column('claimant')]: claimant })
        .update({ [column('httpStatus')]: FAILED, [column('answer')]: null });
    },

    /**
     * Keeps the answers in one UPDATE (keep them within ANSWERS_PER_STATEMENT and
     * ANSWER_BYTES_PER_STATEMENT), in `trx` when given. Each row is matched by its fingerprint
     * and claimant; the ELSE branches keep a row that another request took over and give
     * PostgreSQL the columns' types for the parameters. MySQL and MariaDB are told to use the
     * fingerprint index: for a batch that is a large share of a small table they read the whole
     * table instead, locking every row they read, and then wait for every write still running to
     * end.
     */
    async keepAnswers(answers: AnswerToKeep[], trx?: Trx): Promise<void> {
      const { name, column } = table();
      const fingerprintIndex = mysql() ? ` FORCE INDEX (${FINGERPRINT_INDEX})` : '';
      const caseOf = (target: string, value: (kept: AnswerToKeep) => unknown) => ({
        sql: `CASE ${answers.map(() => 'WHEN ?? = ? AND ?? = ? THEN ?').join(' ')} ELSE ?? END`,
        bindings: [
          ...answers.flatMap((kept) => [
            column('fingerprint'),
            kept.fingerprint,
            column('claimant'),
            kept.claimant,
            value(kept),
          ]),
          target,
        ],
      });
      const status = caseOf(column('httpStatus'), (kept) => kept.status);
      const answer = caseOf(column('answer'), (kept) => kept.answer);
      const fingerprints = answers.map((kept) => kept.fingerprint);
      await (trx ?? strapi.db.connection).raw(
        `UPDATE ??${fingerprintIndex} SET ?? = ${status.sql}, ?? = ${answer.sql} WHERE ?? IN (${fingerprints.map(() => '?').join(', ')})`,
        [
          name,
          column('httpStatus'),
          ...status.bindings,
          column('answer'),
          ...answer.bindings,
          column('fingerprint'),
          ...fingerprints,
        ]
      );
    },
  };
}
