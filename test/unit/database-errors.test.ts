import {
  driverMessageOf,
  isLockWaitExceeded,
  isLostConnection,
  isRetryableConflict,
  isSqliteBusy,
  isUniqueViolation,
  missingTableOf,
  unstorableTextPlaceOf,
} from '../../server/src/utils/database-errors';

describe('isLostConnection', () => {
  it.each([
    ['a PostgreSQL shutdown code', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    [
      'a database refusing connections',
      Object.assign(new Error('not accepting connections'), { code: '55000' }),
    ],
    ['a refused TCP connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    [
      'node-postgres: the connection died under the query',
      new Error('insert into "x" values ($1) - Connection terminated unexpectedly'),
    ],
    ['node-postgres: the connection ended', new Error('Connection ended unexpectedly')],
    [
      'MariaDB refusing a locked account (errno 4151, which mysql2 names after another error)',
      Object.assign(new Error('Access denied, this account is locked'), {
        code: 'ER_UNKNOWN_ERROR',
        errno: 4151,
      }),
    ],
  ])('is true for %s', (_name, error) => {
    expect(isLostConnection(error)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    [
      'a message that only mentions a connection',
      new Error('Connection terminated unexpectedly, said the user'),
    ],
    ['a value that is not an error', 'Connection terminated unexpectedly?'],
  ])('is false for %s', (_name, error) => {
    expect(isLostConnection(error)).toBe(false);
  });

  it('tells a unique violation apart', () => {
    expect(isUniqueViolation(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(true);
    expect(isUniqueViolation(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});

describe("SQLite's busy file", () => {
  const withCode = (code: string) => Object.assign(new Error('database is locked'), { code });

  it.each(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT'])(
    'counts %s as a busy file: a lock wait, tried again',
    (code) => {
      expect(isSqliteBusy(withCode(code))).toBe(true);
      expect(isLockWaitExceeded(withCode(code))).toBe(true);
      expect(isRetryableConflict(withCode(code))).toBe(true);
    }
  );

  it.each(['SQLITE_BUSYNESS', 'SQLITE_LOCKED', 'SQLITE_NOTADB'])('does not count %s', (code) => {
    expect(isSqliteBusy(withCode(code))).toBe(false);
    expect(isLockWaitExceeded(withCode(code))).toBe(false);
    expect(isRetryableConflict(withCode(code))).toBe(false);
  });
});

describe("MariaDB's snapshot conflict (ER_CHECKREAD, innodb_snapshot_isolation)", () => {
  it.each([
    ['by its code', { code: 'ER_CHECKREAD', errno: 1020 }],
    ['by its errno alone', { code: 'ER_UNKNOWN_ERROR', errno: 1020 }],
  ])('is a conflict tried again, %s', (_how, fields) => {
    const conflict = Object.assign(new Error('Record has changed since last read in table'), fields);
    expect(isRetryableConflict(conflict)).toBe(true);
    expect(isLockWaitExceeded(conflict)).toBe(false);
  });
});

describe('driverMessageOf', () => {
  it('keeps the database words and drops the statement knex puts before them, values and all', () => {
    const statement = `UPDATE receipts SET answer = CASE WHEN fingerprint = 'a - b' THEN '${'x'.repeat(5_000)}' END`;
    expect(driverMessageOf(new Error(`${statement} - deadlock detected`))).toBe('deadlock detected');
    expect(
      driverMessageOf(
        Object.assign(new Error(`${statement} - Got a packet bigger than 'max_allowed_packet' bytes`), {
          sqlMessage: "Got a packet bigger than 'max_allowed_packet' bytes",
        })
      )
    ).toBe("Got a packet bigger than 'max_allowed_packet' bytes");
  });

  it('never carries more than a few hundred characters', () => {
    expect(driverMessageOf(new Error('y'.repeat(10_000))).length).toBeLessThanOrEqual(301);
  });
});

describe('missingTableOf', () => {
  const statement = 'select * from identities where name = \'relation "decoy" does not exist\'';

  it("names the table in each database's words, after knex's statement", () => {
    expect(
      missingTableOf(new Error(`${statement} - relation "publish_bridge_identities" does not exist`))
    ).toBe('publish_bridge_identities');
    expect(
      missingTableOf(
        Object.assign(new Error('ER_NO_SUCH_TABLE'), {
          sqlMessage: "Table 'pb_test_x.publish_bridge_identities' doesn't exist",
        })
      )
    ).toBe('publish_bridge_identities');
    expect(missingTableOf(new Error(`${statement} - no such table: publish_bridge_identities`))).toBe(
      'publish_bridge_identities'
    );
  });

  it('is undefined for any other failure', () => {
    expect(missingTableOf(new Error(`${statement} - deadlock detected`))).toBeUndefined();
    expect(missingTableOf(new Error('Cannot read properties of undefined'))).toBeUndefined();
  });
});

describe('unstorableTextPlaceOf', () => {
  const mysqlError = (code: string, sqlMessage: string) =>
    Object.assign(new Error(code), { code, sqlMessage });

  it("names the column in MariaDB's and MySQL's words for a character outside its set", () => {
    expect(
      unstorableTextPlaceOf(
        mysqlError(
          'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
          "Incorrect string value: '\\xCE\\x95\\xCE\\xBB...' for column `pb_test_x`.`posts`.`title` at row 1"
        )
      )
    ).toBe('the column posts.title');
    expect(
      unstorableTextPlaceOf(
        mysqlError(
          'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
          "Incorrect string value: '\\xE6\\x97\\xA5' for column 'title' at row 1"
        )
      )
    ).toBe('the column title');
  });

  it("names the column's collation in a comparison, wherever the column stands in it", () => {
    for (const sqlMessage of [
      "Illegal mix of collations (latin1_swedish_ci,IMPLICIT) and (utf8mb4_general_ci,COERCIBLE) for operation '='",
      "Illegal mix of collations (utf8mb4_general_ci,COERCIBLE) and (latin1_swedish_ci,IMPLICIT) for operation '='",
    ]) {
      expect(unstorableTextPlaceOf(mysqlError('ER_CANT_AGGREGATE_2COLLATIONS', sqlMessage))).toBe(
        'a column of collation latin1_swedish_ci'
      );
    }
    expect(
      unstorableTextPlaceOf(
        mysqlError('ER_CANT_AGGREGATE_NCOLLATIONS', "Illegal mix of collations for operation 'in'")
      )
    ).toBe('a column');
  });

  it('is undefined for a wrong value that is not text, and for any other failure', () => {
    expect(
      unstorableTextPlaceOf(
        mysqlError(
          'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
          "Incorrect integer value: 'x' for column `pb_test_x`.`posts`.`id` at row 1"
        )
      )
    ).toBeUndefined();
    expect(
      unstorableTextPlaceOf(mysqlError('ER_DUP_ENTRY', "Duplicate entry 'x' for key 'slug'"))
    ).toBeUndefined();
    expect(unstorableTextPlaceOf(new Error('Illegal mix of collations'))).toBeUndefined();
  });
});
