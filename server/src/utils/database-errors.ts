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
/**
 * Deadlocks and serialization failures (among them MariaDB's ER_CHECKREAD: a row changed since
 * the transaction's snapshot, under innodb_snapshot_isolation): the same work succeeds when tried
 * again, as it does after SQLite's busy file. A lock wait that ran past the plugin's limit is not
 * among them: another session holds the lock for longer than a request should wait, and trying
 * again would only wait again.
 */
const TRANSIENT_CONFLICTS = new Set(['40P01', '40001', 'ER_LOCK_DEADLOCK', 'ER_CHECKREAD']);
/** PostgreSQL's lock_timeout, MySQL's and MariaDB's lock waits (rows and tables), as SQLite's busy file is. */
const LOCK_WAITS_EXCEEDED = new Set(['55P03', 'ER_LOCK_WAIT_TIMEOUT']);
/** SQLite's busy file: SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, _RECOVERY, _TIMEOUT). */
const SQLITE_BUSY = /^SQLITE_BUSY(_|$)/;
const MYSQL_ERRNO_CODES: Record<number, string> = {
  1020: 'ER_CHECKREAD',
  1062: 'ER_DUP_ENTRY',
  1205: 'ER_LOCK_WAIT_TIMEOUT',
  1213: 'ER_LOCK_DEADLOCK',
  // mysql2 names MariaDB's 4151 after a MySQL error of that number, so it is matched by errno.
  4151: 'ER_ACCOUNT_HAS_BEEN_LOCKED',
};

/**
 * The database could not be reached or refused the connection: a server restarting, failing
 * over, or briefly refusing connections. Only asked about a transaction that never began.
 */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  // PostgreSQL: admin/crash shutdown, cannot connect now, connection exceptions, too many
  // connections, and 55000, which it answers while a database does not accept connections.
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  '55000',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  // MariaDB refusing the site's account for a while (ALTER USER ... ACCOUNT LOCK).
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
]);

/** The message of Strapi's own uniqueness check (uid attributes, `unique: true`), a SELECT that a concurrent insert races. */
const STRAPI_UNIQUE_MESSAGE = 'This attribute must be unique';

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current = error as DriverError | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth += 1) {
    if (typeof current.code === 'string') codes.push(current.code);
    if (typeof current.errno === 'number' && MYSQL_ERRNO_CODES[current.errno]) {
      codes.push(MYSQL_ERRNO_CODES[current.errno]);
    }
    current = current.cause as DriverError | undefined;
  }
  return codes;
}

/**
 * Strapi's entity validator refuses a value that a committed row already holds (a slug that a
 * concurrent request just took) before the database sees it. Only an error whose every
 * problem is that one counts, so a real validation failure is never retried.
 */
function isStrapiUniqueRefusal(error: unknown): boolean {
  const { name, details } = (error ?? {}) as { name?: unknown; details?: { errors?: unknown } };
  const problems = details?.errors;
  return (
    name === 'ValidationError' &&
    Array.isArray(problems) &&
    problems.length > 0 &&
    problems.every((problem) => (problem as { message?: unknown })?.message === STRAPI_UNIQUE_MESSAGE)
  );
}

export const isConnectionFailure = (error: unknown) =>
  codesOf(error).some((code) => CONNECTION_FAILURES.has(code));

/** node-postgres reports a connection that died under a query with no code, only these words. */
const PG_CONNECTION_LOST = /^Connection (terminated|ended) unexpectedly$/;

/**
 * A statement outside a transaction whose connection failed or died under it: running it again on
 * a fresh connection is safe when the statement is an insert guarded by a unique index.
 */
export const isLostConnection = (error: unknown) =>
  isConnectionFailure(error) ||
  PG_CONNECTION_LOST.test(String((error as Error)?.message ?? '').replace(/^.* - /, ''));

/** SQLite found its file locked by another connection. */
export const isSqliteBusy = (error: unknown) => codesOf(error).some((code) => SQLITE_BUSY.test(code));

/** A write that lost a race to a concurrent one, so running it again sees the winner's rows. */
export const isRetryableConflict = (error: unknown) =>
  isStrapiUniqueRefusal(error) ||
  isSqliteBusy(error) ||
  codesOf(error).some((code) => UNIQUE_VIOLATIONS.has(code) || TRANSIENT_CONFLICTS.has(code));

/** A statement gave up waiting for a lock another database session held. */
export const isLockWaitExceeded = (error: unknown) =>
  isSqliteBusy(error) || codesOf(error).some((code) => LOCK_WAITS_EXCEEDED.has(code));

/** Another row already holds the value a unique index guards. */
export const isUniqueViolation = (error: unknown) =>
  codesOf(error).some((code) => UNIQUE_VIOLATIONS.has(code));

/** Each database's words for a statement on a table that is not there: PostgreSQL 42P01, MySQL 1146, SQLite. */
const MISSING_TABLE = [
  /relation "([^"]+)" does not exist/,
  /Table '(?:[^'.]+\.)?([^']+)' doesn't exist/,
  /no such table: (\S+)/,
];

/** The table a failed statement found missing (dropped by hand, or a restore without it), if that is why it failed. */
export function missingTableOf(error: unknown): string | undefined {
  const message = driverMessageOf(error);
  for (const pattern of MISSING_TABLE) {
    const found = pattern.exec(message);
    if (found) return found[1];
  }
  return undefined;
}

/**
 * Text a column cannot hold, in MySQL's and MariaDB's words: a character outside the column's
 * character set is refused when stored (1366, in strict mode; MariaDB names
 * `database`.`table`.`column`, MySQL 'column' alone) and when compared with the column (1267,
 * 1270, 1271: an illegal mix of collations, where IMPLICIT marks the column's). A site whose
 * tables were made in latin1 (a server's default before utf8mb4) meets them with the first name
 * in another script.
 */
const INCORRECT_STRING = /^Incorrect string value: .* for column (.+?) at row \d+$/;
const MIXED_COLLATIONS = new Set([
  'ER_CANT_AGGREGATE_2COLLATIONS',
  'ER_CANT_AGGREGATE_3COLLATIONS',
  'ER_CANT_AGGREGATE_NCOLLATIONS',
]);
const COLUMN_COLLATION = /\((\w+),IMPLICIT\)/;

/** Where the database could not hold a request's text (a column, a collation), when that is why a statement failed. */
export function unstorableTextPlaceOf(error: unknown): string | undefined {
  const codes = codesOf(error);
  const message = driverMessageOf(error);
  const column = codes.includes('ER_TRUNCATED_WRONG_VALUE_FOR_FIELD') ? INCORRECT_STRING.exec(message) : null;
  if (column) {
    const names = column[1].split('.').map((name) => name.replace(/^[`']|[`']$/g, ''));
    return `the column ${names.slice(-2).join('.')}`;
  }
  if (!codes.some((code) => MIXED_COLLATIONS.has(code))) return undefined;
  const collation = COLUMN_COLLATION.exec(message);
  return collation ? `a column of collation ${collation[1]}` : 'a column';
}

/** Long enough for any driver's own message, too short for a statement with its values. */
const DRIVER_MESSAGE_MAX = 300;

/**
 * The database's own words for a failed statement, for a log line: knex puts the whole statement
 * before them, values included (request answers, for the receipts), which a log must not carry.
 */
export function driverMessageOf(error: unknown): string {
  const { sqlMessage, message } = (error ?? {}) as { sqlMessage?: unknown; message?: unknown };
  const text = typeof sqlMessage === 'string' ? sqlMessage : String(message ?? error).replace(/^.* - /s, '');
  return text.length > DRIVER_MESSAGE_MAX ? `${text.slice(0, DRIVER_MESSAGE_MAX)}…` : text;
}
