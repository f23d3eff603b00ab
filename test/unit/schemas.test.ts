import { ContractError, parseBody } from '../../server/src/contract/errors';
import {
  authorCreateSchema,
  blogCategoryCreateSchema,
  handshakeSchema,
  postCreateSchema,
  postUpdateSchema,
  productUpdateSchema,
} from '../../server/src/contract/schemas';

const minimalPost = { title: 'Hello', content: '<p>Body</p>', status: 'publish' };

/** The 400 message a body gets, or undefined when it is accepted. */
function refusal(schema: Parameters<typeof parseBody>[0], body: unknown): string | undefined {
  try {
    parseBody(schema, body);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).status).toBe(400);
    return (error as ContractError).message;
  }
}

describe('post create', () => {
  it('accepts the three required fields alone', () => {
    expect(parseBody(postCreateSchema, minimalPost)).toEqual(minimalPost);
  });

  it.each(['title', 'content', 'status'])('requires %s and names it', (field) => {
    const body: Record<string, unknown> = { ...minimalPost };
    delete body[field];
    expect(refusal(postCreateSchema, body)).toMatch(new RegExp(`^Invalid request: ${field} `));
  });

  it('treats a null required field as missing', () => {
    expect(refusal(postCreateSchema, { ...minimalPost, title: null })).toContain('title ');
  });

  it('refuses a blank title', () => {
    expect(refusal(postCreateSchema, { ...minimalPost, title: '   ' })).toContain('title must not be empty');
  });

  it('accepts only "publish" and "draft" as status', () => {
    expect(parseBody(postCreateSchema, { ...minimalPost, status: 'draft' }).status).toBe('draft');
    for (const status of ['published', 'Publish', 'private', '', 1]) {
      expect(refusal(postCreateSchema, { ...minimalPost, status })).toContain(
        'status must be one of publish, draft'
      );
    }
  });

  it('refuses wrong types and names each field', () => {
    const message = refusal(postCreateSchema, { ...minimalPost, content: 12, tags: 'one,two' });
    expect(message).toContain('content ');
    expect(message).toContain('tags ');
  });

  it('accepts a full post as the publisher sends it', () => {
    const full = {
      ...minimalPost,
      excerpt: 'Short',
      date: '2026-03-01 09:30:00',
      categories: ['News', 'Tech'],
      tags: ['a', 'b'],
      author: 'Jane Doe',
      featured_image: 'https://cdn.example.com/a.png',
      reading_time: '5 min',
      seo: { title: 'S', description: 'D', keywords: ['k1', 'k2'] },
      source_id: 'src-1',
    };
    expect(parseBody(postCreateSchema, full)).toEqual(full);
  });
});

describe('dates', () => {
  it.each(['2026-03-01 09:30:00', '2024-02-29 23:59:59', '2026-12-31 00:00:00'])('accepts %s', (date) => {
    expect(parseBody(postCreateSchema, { ...minimalPost, date }).date).toBe(date);
  });

  it.each([
    '2026-02-30 10:00:00',
    '2025-02-29 10:00:00',
    '2026-13-01 10:00:00',
    '2026-04-31 10:00:00',
    '2026-03-01 24:00:00',
    '2026-03-01 10:60:00',
    '2026-03-01 10:00:60',
    '2026-03-01T10:00:00',
    '2026-03-01 10:00:00Z',
    '2026-03-01',
    '2026-3-1 10:00:00',
    ' 2026-03-01 10:00:00',
    '',
  ])('refuses %p with the expected format in the message', (date) => {
    expect(refusal(postCreateSchema, { ...minimalPost, date })).toContain(
      'date must be a date in the format YYYY-MM-DD HH:MM:SS'
    );
  });
});

describe('lengths', () => {
  it("accepts a title of any length (the site's attribute decides where it is cut), but not an empty one", () => {
    expect(parseBody(postCreateSchema, { ...minimalPost, title: 'x'.repeat(300) }).title).toHaveLength(300);
    expect(refusal(postCreateSchema, { ...minimalPost, title: ' ' })).toContain('title ');
  });

  it('counts characters, not bytes, so 255 accented letters still fit', () => {
    expect(parseBody(postCreateSchema, { ...minimalPost, title: 'é'.repeat(255) }).title).toHaveLength(255);
  });

  it('refuses more than 100 categories or tags', () => {
    const names = (count: number) => Array.from({ length: count }, (_, index) => `name ${index}`);
    expect(parseBody(postCreateSchema, { ...minimalPost, categories: names(100) }).categories).toHaveLength(
      100
    );
    expect(refusal(postCreateSchema, { ...minimalPost, categories: names(101) })).toContain('categories ');
    expect(refusal(postCreateSchema, { ...minimalPost, tags: names(101) })).toContain('tags ');
  });

  it('refuses an empty or over-long category name, naming its position', () => {
    expect(refusal(postCreateSchema, { ...minimalPost, categories: ['ok', ' '] })).toContain('categories.1 ');
    expect(refusal(postCreateSchema, { ...minimalPost, tags: ['x'.repeat(256)] })).toContain('tags.0 ');
  });

  it('refuses a source_id longer than the contract id limit of 191', () => {
    expect(
      parseBody(postCreateSchema, { ...minimalPost, source_id: 's'.repeat(191) }).source_id
    ).toHaveLength(191);
    expect(refusal(postCreateSchema, { ...minimalPost, source_id: 's'.repeat(192) })).toContain('source_id ');
  });

  it('accepts a long seo title (cut to fit later) and refuses an over-long reading time, naming the field', () => {
    expect(
      parseBody(postCreateSchema, { ...minimalPost, seo: { title: 'x'.repeat(300) } }).seo?.title
    ).toHaveLength(300);
    expect(refusal(postCreateSchema, { ...minimalPost, reading_time: 'x'.repeat(256) })).toContain(
      'reading_time '
    );
  });

  it('keeps long content whole', () => {
    const content = `<p>${'word '.repeat(200_000)}</p>`;
    expect(parseBody(postCreateSchema, { ...minimalPost, content }).content).toBe(content);
  });
});

describe('featured image', () => {
  it('accepts http(s) URLs and an empty string', () => {
    for (const url of ['https://cdn.example.com/a.png', 'http://example.com/x', '']) {
      expect(parseBody(postCreateSchema, { ...minimalPost, featured_image: url }).featured_image).toBe(url);
    }
  });

  it.each(['javascript:alert(1)', 'ftp://example.com/a.png', '/relative.png', 'https://exa mple.com'])(
    'refuses %p',
    (url) => {
      expect(refusal(postCreateSchema, { ...minimalPost, featured_image: url })).toContain(
        'featured_image must be an http(s) URL'
      );
    }
  );
});

describe('null, unknown and hostile fields', () => {
  it('reads null as "not sent" on update, so a partial update keeps the stored value', () => {
    expect(
      parseBody(postUpdateSchema, {
        title: null,
        excerpt: null,
        categories: null,
        seo: null,
        status: null,
        date: null,
      })
    ).toEqual({});
    expect(parseBody(postUpdateSchema, { seo: { title: null, description: 'd' } })).toEqual({
      seo: { description: 'd' },
    });
  });

  it('refuses a lone UTF-16 surrogate in any string field, naming the field, and keeps whole pairs', () => {
    const broken = 'cut emoji \uD83D';
    expect(refusal(postCreateSchema, { ...minimalPost, title: broken })).toMatch(
      /^Invalid request: title .*surrogate/
    );
    expect(refusal(postCreateSchema, { ...minimalPost, content: `<p>\uDE00</p>` })).toMatch(
      /^Invalid request: content /
    );
    expect(refusal(postCreateSchema, { ...minimalPost, seo: { keywords: ['ok', broken] } })).toMatch(
      /^Invalid request: seo\.keywords\.1 /
    );
    expect(refusal(productUpdateSchema, { images: [{ url: 'https://x.test/a.png', alt: broken }] })).toMatch(
      /^Invalid request: images\.0\.alt /
    );
    expect(refusal(authorCreateSchema, { display_name: broken })).toMatch(/^Invalid request: display_name /);
    expect(refusal(postCreateSchema, { ...minimalPost, title: 'whole \uD83D\uDE00 pair' })).toBeUndefined();
  });

  it('drops unknown fields instead of refusing them', () => {
    const parsed = parseBody(postCreateSchema, { ...minimalPost, sticky: true, seo: { robots: 'noindex' } });
    expect(parsed).toEqual({ ...minimalPost, seo: {} });
  });

  it('accepts any subset on update, including the empty object', () => {
    expect(parseBody(postUpdateSchema, {})).toEqual({});
    expect(parseBody(postUpdateSchema, { status: 'draft' })).toEqual({ status: 'draft' });
    expect(parseBody(postUpdateSchema, { content: '<p>x</p>', source_id: 's1' })).toEqual({
      content: '<p>x</p>',
      source_id: 's1',
    });
  });

  it('keeps update rules for fields that are sent', () => {
    expect(refusal(postUpdateSchema, { status: 'published' })).toContain('status ');
    expect(refusal(postUpdateSchema, { title: '' })).toContain('title ');
    expect(refusal(postUpdateSchema, { date: '2026-02-30 00:00:00' })).toContain('date ');
  });

  it('leaves "__proto__" keys of a parsed body without effect', () => {
    const body = JSON.parse(
      '{"title":"T","content":"C","status":"draft","__proto__":{"polluted":true,"status":"publish"},' +
        '"seo":{"__proto__":{"polluted":true},"title":"S"},"constructor":{"prototype":{"polluted":true}}}'
    );
    const parsed = parseBody(postCreateSchema, body) as Record<string, unknown>;
    expect(parsed).toEqual({ title: 'T', content: 'C', status: 'draft', seo: { title: 'S' } });
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['title', 'content', 'status', 'seo']);
    expect(parsed.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(parseBody(handshakeSchema, body)).toBeDefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a body that is not a JSON object', () => {
    for (const body of [[minimalPost], 'text', 42, null, true]) {
      expect(refusal(postCreateSchema, body)).toBe('Invalid request: the body must be a JSON object.');
    }
  });
});

describe('author create', () => {
  it('needs a display_name or a username', () => {
    expect(parseBody(authorCreateSchema, { display_name: 'Jane' })).toEqual({ display_name: 'Jane' });
    expect(parseBody(authorCreateSchema, { username: 'jane' })).toEqual({ username: 'jane' });
    expect(refusal(authorCreateSchema, { email: 'jane@example.com' })).toContain(
      'display_name or username is required: an author needs at least one of them'
    );
    expect(refusal(authorCreateSchema, { display_name: '  ', username: '' })).toContain('display_name ');
  });

  it('validates the email', () => {
    expect(parseBody(authorCreateSchema, { username: 'jane', email: 'jane@example.com' }).email).toBe(
      'jane@example.com'
    );
    for (const email of ['jane', 'jane@', '@example.com', 'jane@example', 'jane doe@example.com']) {
      expect(refusal(authorCreateSchema, { username: 'jane', email })).toContain(
        'email must be a valid email address'
      );
    }
  });

  it('validates the url', () => {
    expect(refusal(authorCreateSchema, { username: 'jane', url: 'javascript:x' })).toContain('url ');
  });
});

describe('other bodies', () => {
  it('a blog category needs a name', () => {
    expect(refusal(blogCategoryCreateSchema, { description: 'd' })).toContain('name ');
    expect(parseBody(blogCategoryCreateSchema, { name: 'News', parent: 'Root' })).toEqual({
      name: 'News',
      parent: 'Root',
    });
  });

  it('a product update drops price, SKU and stock', () => {
    expect(parseBody(productUpdateSchema, { description: 'd', price: '9.99', sku: 'X', stock: 3 })).toEqual({
      description: 'd',
    });
  });

  it('a handshake accepts any object', () => {
    expect(() => parseBody(handshakeSchema, {})).not.toThrow();
    expect(() => parseBody(handshakeSchema, { site: 'x', anything: [1] })).not.toThrow();
  });
});

describe('validation messages in plain words (issue 40)', () => {
  const problem = (schema: Parameters<typeof parseBody>[0], body: unknown) =>
    refusal(schema, body)?.replace(/^Invalid request: /, '');

  it('names a missing or null required field and the kind of value it takes', () => {
    expect(problem(postCreateSchema, { content: 'x', status: 'draft' })).toBe(
      'title is required (a string).'
    );
    expect(problem(postCreateSchema, { ...minimalPost, title: null })).toBe('title is required (a string).');
  });

  it('says what type a field takes and what it got', () => {
    expect(problem(postCreateSchema, { ...minimalPost, content: 12 })).toBe(
      'content must be a string, not a number.'
    );
    expect(problem(postCreateSchema, { ...minimalPost, categories: 'news,tips' })).toBe(
      'categories must be a list of strings, not a string.'
    );
    expect(problem(postCreateSchema, { ...minimalPost, seo: 'x' })).toBe(
      'seo must be an object, not a string.'
    );
    expect(problem(productUpdateSchema, { images: [{}] })).toBe('images.0.url is required (a string).');
  });

  it('lists the values an enum accepts', () => {
    expect(problem(postCreateSchema, { ...minimalPost, status: 'published' })).toBe(
      'status must be one of publish, draft.'
    );
  });

  it('gives the limit of a value that is too long or a list that is too long', () => {
    expect(problem(postCreateSchema, { ...minimalPost, reading_time: 'x'.repeat(256) })).toBe(
      'reading_time must be at most 255 characters long.'
    );
    expect(
      problem(postCreateSchema, { ...minimalPost, tags: Array.from({ length: 101 }, (_, i) => `t${i}`) })
    ).toBe('tags must have at most 100 items.');
  });

  it('names the expected date format', () => {
    expect(problem(postCreateSchema, { ...minimalPost, date: '2026-02-30 00:00:00' })).toBe(
      'date must be a date in the format YYYY-MM-DD HH:MM:SS.'
    );
  });

  it('names a nested field by its path', () => {
    expect(problem(postCreateSchema, { ...minimalPost, seo: { title: 5 } })).toBe(
      'seo.title must be a string, not a number.'
    );
    expect(problem(postCreateSchema, { ...minimalPost, seo: { keywords: ['ok', 7] } })).toBe(
      'seo.keywords.1 must be a string, not a number.'
    );
  });

  it('names an invalid email address', () => {
    expect(problem(authorCreateSchema, { display_name: 'A', email: 'nope' })).toBe(
      'email must be a valid email address.'
    );
  });

  it('joins several problems, one per field', () => {
    expect(problem(postCreateSchema, { status: 'x' })).toBe(
      'title is required (a string); content is required (a string); status must be one of publish, draft.'
    );
  });
});
