/**
 * Driver errors arrive raw from knex: PostgreSQL reports SQLSTATE codes, MySQL/MariaDB
 * errno values, SQLite extended result codes.
 */
type DriverError = { code?: unknown; errno?: unknown; cause?: unknown };

const UNIQUE_VIOLATIONS = new Set([
  '23505',
  'ER_DUP_ENTRY',
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
]);
/** Deadlocks, serialization failures and lock timeouts: the same work succeeds when tried again. */
const TRANSIENT_CONFLICTS = new Set([
  '40P01',
  '40001',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'SQLITE_BUSY',
]);

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current = error as DriverError | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth += 1) {
    if (typeof current.code === 'string') codes.push(current.code);
    if (current.errno === 1062) codes.push('ER_DUP_ENTRY');
    if (current.errno === 1213) codes.push('ER_LOCK_DEADLOCK');
    current = current.cause as DriverError | undefined;
  }
  return codes;
}

export const isUniqueViolation = (error: unknown) =>
  codesOf(error).some((code) => UNIQUE_VIOLATIONS.has(code));

/** A write that lost a race to a concurrent one, so running it again sees the winner's rows. */
export const isRetryableConflict = (error: unknown) =>
  codesOf(error).some((code) => UNIQUE_VIOLATIONS.has(code) || TRANSIENT_CONFLICTS.has(code));
