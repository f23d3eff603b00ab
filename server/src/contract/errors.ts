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

export function describeZodError(error: z.ZodError): string {
  const lines = error.issues.slice(0, MAX_ISSUES_SHOWN).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  const more = error.issues.length - MAX_ISSUES_SHOWN;
  return `Invalid request: ${lines.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** Validates a parsed JSON body; anything but a JSON object is refused before the schema runs. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ContractError(400, 'Invalid request: the body must be a JSON object.');
  }
  const result = schema.safeParse(body);
  if (!result.success) throw new ContractError(400, describeZodError(result.error));
  const broken = loneSurrogateField(result.data);
  if (broken !== undefined) {
    throw new ContractError(
      400,
      `Invalid request: ${broken}: holds half of a UTF-16 surrogate pair, which is not a character (often text cut in the middle of an emoji); send the whole character or remove it.`
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
