import { z } from 'zod';
import {
  ContractError,
  describeZodError,
  errorBody,
  notFound,
  parseBody,
  safeParseInPlainWords,
} from '../../server/src/contract/errors';
import { parseJsonBody } from '../../server/src/utils/json-body';

describe('ContractError', () => {
  it('carries the status and the message shown to the user', () => {
    const error = new ContractError(413, 'too big');
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(413);
    expect(error.message).toBe('too big');
    expect(error.name).toBe('ContractError');
  });

  it('errorBody is exactly the contract error shape', () => {
    expect(errorBody('x')).toEqual({ error: 'x' });
    expect(Object.keys(errorBody('x'))).toEqual(['error']);
  });

  it('notFound names the resource and the id and says how to recover', () => {
    const error = notFound('post', 'abc123');
    expect(error.status).toBe(404);
    expect(error.message).toContain('post');
    expect(error.message).toContain('"abc123"');
    expect(error.message).toContain('publish it again');
  });
});

describe('describeZodError', () => {
  const schema = z.object({ a: z.string(), b: z.string(), c: z.string(), d: z.string(), e: z.string() });

  it('names each field with its problem', () => {
    const message = describeZodError(z.object({ a: z.string() }).safeParse({ a: 1 }).error!);
    expect(message).toMatch(/^Invalid request: a /);
  });

  it('shows at most three problems and counts the rest', () => {
    const message = describeZodError(safeParseInPlainWords(schema, {}).error!);
    expect(message).toContain('a is required');
    expect(message).toContain('c is required');
    expect(message).not.toContain('d is required');
    expect(message).toContain('(and 2 more)');
  });

  it('joins nested paths with dots and calls a root problem "body"', () => {
    const nested = z.object({ seo: z.object({ keywords: z.array(z.string()) }) });
    expect(describeZodError(nested.safeParse({ seo: { keywords: ['a', 2] } }).error!)).toContain(
      'seo.keywords.1 '
    );
    expect(describeZodError(z.string().safeParse(1).error!)).toContain('the body ');
  });
});

describe('parseBody', () => {
  const schema = z.object({ name: z.string() });

  it('returns the parsed value', () => {
    expect(parseBody(schema, { name: 'x', extra: 1 })).toEqual({ name: 'x' });
  });

  it.each([[[]], ['string'], [7], [null], [undefined]])(
    'refuses %p with 400 before the schema runs',
    (body) => {
      expect(() => parseBody(schema, body)).toThrow(
        expect.objectContaining({ status: 400, message: 'Invalid request: the body must be a JSON object.' })
      );
    }
  );

  it('turns schema failures into 400 with the described message', () => {
    expect(() => parseBody(schema, { name: 3 })).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringMatching(/^Invalid request: name /) })
    );
  });
});

describe('a NUL character in the body', () => {
  test('is refused with 400, as PostgreSQL cannot store it', () => {
    expect(() => parseJsonBody(Buffer.from('{"title":"a\\u0000b"}'))).toThrow(/NUL/);
    expect(() => parseJsonBody(Buffer.from('{"tags":["ok","x\\u0000"]}'))).toThrow(
      expect.objectContaining({ status: 400 })
    );
    expect(parseJsonBody(Buffer.from('{"title":"a\\\\u0000b"}'))).toEqual({ title: 'a\\u0000b' });
  });
});
