import type { z } from 'zod';

/** The contract's error body (section 2.4): one actionable message, shown to the user as is. */
export type ErrorBody = { error: string };

/** A failure the publisher's user should see, with the HTTP status the decisions assign to it. */
export class ContractError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 500 | 503,
    message: string
  ) {
    super(message);
    this.name = 'ContractError';
  }
}

/** A 401 anyone could have caused, with why (an `AuthFailureReason`), for the activity log. */
export class Unauthenticated extends ContractError {
  constructor(
    readonly reason: string,
    message: string
  ) {
    super(401, message);
  }
}

export const errorBody = (message: string): ErrorBody => ({ error: message });

/** The answer to an error nobody foresaw: no detail, only the id to find it in the site's log. */
export const internalErrorMessage = (requestId: string) =>
  `The site could not complete the request because of an internal error. Nothing was changed; try again, and if it persists give the site's administrator request id ${requestId}.`;

const MAX_ISSUES_SHOWN = 3;

/** The kind of value a zod type takes, as the publisher's user would say it. */
const KINDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  date: 'a date',
  bigint: 'a whole number',
};

const kindOf = (type: string) => KINDS[type] ?? `a ${type}`;

/** What a value received is called in a message ("a number", "a list"); JSON has no other kinds. */
function receivedKind(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  return kindOf(typeof input);
}

/** "a list of strings" where the list's element type is known, "a list" otherwise. */
function expectedKind(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidType>): string {
  const def = issue.inst?._zod.def as { type?: string; element?: z.core.$ZodType } | undefined;
  const element = def?.type === 'array' ? def.element?._zod.def.type : undefined;
  if (element === 'string' || element === 'number') return `a list of ${element}s`;
  if (element === 'object') return 'a list of objects';
  return kindOf(issue.expected);
}

const bound = (issue: { origin: string }, limit: number | bigint | Date) => {
  if (issue.origin === 'string') return `${limit} characters long`;
  if (issue.origin === 'array' || issue.origin === 'set') return `${limit} items`;
  return String(limit);
};

/**
 * Zod's issues in plain words, without the field (the message puts the field first): zod 4's
 * own text ("Invalid input: expected string, received undefined") reads as a validator's. Passed
 * per parse, never set with `z.config`, which would change every zod user in the process (Strapi
 * included). A message a schema sets itself (`{ error: 'must not be empty' }`) takes precedence.
 */
export const inPlainWords: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      // The contract reads a null as "not sent", so a null required field is a missing one.
      return issue.input === undefined || issue.input === null
        ? `is required (${expectedKind(issue)})`
        : `must be ${expectedKind(issue)}, not ${receivedKind(issue.input)}`;
    case 'invalid_value': {
      const allowed =
        issue.values.length === 1 ? String(issue.values[0]) : `one of ${issue.values.map(String).join(', ')}`;
      return issue.input === undefined || issue.input === null
        ? `is required (${allowed})`
        : `must be ${allowed}`;
    }
    case 'too_big':
      return issue.origin === 'array' || issue.origin === 'set'
        ? `must have at most ${bound(issue, issue.maximum)}`
        : `must be at most ${bound(issue, issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return issue.origin === 'array' || issue.origin === 'set'
        ? `must have at least ${bound(issue, issue.minimum)}`
        : `must be at least ${bound(issue, issue.minimum)}`;
    case 'invalid_format':
      return issue.format === 'email' ? 'must be a valid email address' : `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return `has fields this site does not know: ${issue.keys.join(', ')}`;
    case 'invalid_union':
      return 'is not in any of the accepted forms';
    default:
      return 'is not valid';
  }
};

/** `schema.safeParse` with the messages `describeZodError` expects. */
export const safeParseInPlainWords = <T extends z.ZodType>(schema: T, value: unknown) =>
  schema.safeParse(value, { error: inPlainWords });

/**
 * One sentence naming each field with its problem ("title is required (a string)"), for issues
 * from `safeParseInPlainWords`. A field that failed twice (a list that is no list is also checked
 * for its length) is named once, with its first problem.
 */
export function describeZodError(error: z.ZodError): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the body';
    if (seen.has(field)) continue;
    seen.add(field);
    lines.push(`${field} ${issue.message}`);
  }
  const more = lines.length - MAX_ISSUES_SHOWN;
  const shown = lines.slice(0, MAX_ISSUES_SHOWN).join('; ');
  return `Invalid request: ${shown}${more > 0 ? ` (and ${more} more)` : ''}.`;
}

/** Validates a parsed JSON body; anything but a JSON object is refused before the schema runs. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ContractError(400, 'Invalid request: the body must be a JSON object.');
  }
  const result = safeParseInPlainWords(schema, body);
  if (!result.success) throw new ContractError(400, describeZodError(result.error));
  const broken = loneSurrogateField(result.data);
  if (broken !== undefined) {
    throw new ContractError(
      400,
      `Invalid request: ${broken} holds half of a UTF-16 surrogate pair, which is not a character (often text cut in the middle of an emoji); send the whole character or remove it.`
    );
  }
  return result.data;
}

/**
 * The path of the first string in a validated body holding a lone UTF-16 surrogate, which JSON
 * allows (`"\ud800"`) but no database stores as text: PostgreSQL and MariaDB would store U+FFFD in
 * its place. Checked here, once for every string of every contract body, on the fields kept.
 */
function loneSurrogateField(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return /\p{Surrogate}/u.test(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = loneSurrogateField(child, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

export const notFound = (resource: string, id: string) =>
  new ContractError(
    404,
    `No ${resource} with id "${id}" exists on this site. It may have been deleted in Strapi; publish it again to recreate it.`
  );

/**
 * An entry that exists but that the plugin did not create (an editor's article, say): refused as
 * an unknown id is (404), but named as such, so the user does not republish a duplicate of it.
 */
export const notThePlatforms = (resource: string, id: string) =>
  new ContractError(
    404,
    `The ${resource} with id "${id}" exists on this site but was not created by the publishing platform (an editor made it in Strapi), so the site leaves it alone. To let the platform update or delete it, the site's administrator can set adoptExistingEntries: true in the plugin's configuration, and turn it off again once the platform has updated it.`
  );
