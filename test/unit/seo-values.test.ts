import type { Resource } from '../../server/src/resources';
import type { FieldTarget } from '../../server/src/mapping/resolve';
import {
  seoComponentValue,
  seoFallbacks,
  seoJsonValue,
  type SeoFallbacks,
} from '../../server/src/mapping/seo-values';

/**
 * The seo component's required parts: what fills one the publisher did not send, and when the
 * component is left out. The real Article schema is written end to end in real-shapes.test.ts;
 * these are the orders and edges that need no site.
 */
/** A text part of the component, as the mapping resolves it from the site's schema. */
const textPart = (attribute: string, limits: { min?: number; max?: number }, required = true) => ({
  attribute,
  adapter: 'text' as const,
  attributeType: 'string',
  limits,
  required,
});
/** The example site's shared.seo, with a shorter minimum description. */
const component: FieldTarget = {
  adapter: 'seoComponent',
  attribute: 'seo',
  limits: {},
  seo: {
    title: textPart('metaTitle', { max: 60 }),
    description: textPart('metaDescription', { min: 20, max: 160 }),
    keywords: { ...textPart('keywords', {}, false), attributeType: 'text' },
  },
};
const post = {
  fields: {
    title: { adapter: 'text', attribute: 'title', limits: {} },
    excerpt: { adapter: 'text', attribute: 'summary', limits: {} },
  },
} as unknown as Resource;
const plainText = (html: string) => html.replace(/<[^>]+>/g, '');
const CONTENT_TEXT = 'A paragraph long enough to describe the post.';

function fallbacksFor(input: Record<string, unknown>, current?: Record<string, unknown>): SeoFallbacks {
  return seoFallbacks(post, input, current, plainText);
}

describe('a required seo part that was not sent', () => {
  it('falls back to the excerpt, and to the content when the excerpt is shorter than the part allows', () => {
    const notes: string[] = [];
    const fallbacks = fallbacksFor({
      title: 'Water',
      excerpt: 'Too short',
      content: `<p>${CONTENT_TEXT}</p>`,
    });

    const value = seoComponentValue(component, { keywords: ['water'] }, undefined, fallbacks, notes);

    expect(value).toEqual({ keywords: 'water', metaTitle: 'Water', metaDescription: CONTENT_TEXT });
    expect(notes).toEqual([
      "seo.title was not sent; seo.metaTitle is required, so it holds the post's title.",
      "seo.description was not sent; seo.metaDescription is required, so it holds the post's content.",
    ]);
  });

  it("is read from the stored document's text fields on an update that does not send them", () => {
    const fallbacks = fallbacksFor(
      {},
      { title: 'Stored title', summary: 'A stored excerpt of some length.' }
    );

    expect(fallbacks.title[0].value).toBe('Stored title');
    expect(fallbacks.description.map((candidate) => candidate.value)).toEqual([
      'A stored excerpt of some length.',
      undefined,
    ]);
  });

  it('keeps what the stored component holds, and the stored id so that it is updated in place', () => {
    const notes: string[] = [];
    const existing = { id: 7, metaTitle: 'Kept title', metaDescription: 'A kept description, long enough.' };

    const value = seoComponentValue(component, { keywords: ['new'] }, existing, fallbacksFor({}), notes);

    expect(value).toEqual({
      id: 7,
      keywords: 'new',
      metaTitle: 'Kept title',
      metaDescription: existing.metaDescription,
    });
    expect(notes).toEqual([]);
  });

  it('leaves the whole component out, with a note, when nothing can fill it', () => {
    const notes: string[] = [];

    const value = seoComponentValue(
      component,
      { title: 'Sent' },
      undefined,
      fallbacksFor({ excerpt: 'Short' }),
      notes
    );

    expect(value).toBeUndefined();
    expect(notes).toEqual([
      'seo was not stored: this site requires seo.metaDescription; send seo.description or an excerpt of at least 20 characters.',
    ]);
  });

  it('leaves the component out, with a note, when a required part no post field fills was not sent', () => {
    const notes: string[] = [];
    const requiredKeywords: FieldTarget = {
      ...component,
      seo: { ...component.seo, keywords: { ...textPart('keywords', {}), attributeType: 'text' } },
    };

    const value = seoComponentValue(
      requiredKeywords,
      { title: 'Sent', description: CONTENT_TEXT },
      undefined,
      fallbacksFor({}),
      notes
    );

    expect(value).toBeUndefined();
    expect(notes).toEqual(['seo was not stored: this site requires seo.keywords; send seo.keywords.']);
  });
});

describe('the seo object in a JSON attribute', () => {
  it('keeps the stored keys it does not send', () => {
    expect(seoJsonValue({ title: 'New' }, { title: 'Old', description: 'Kept' })).toEqual({
      title: 'New',
      description: 'Kept',
    });
    expect(seoJsonValue({ title: 'New' }, null)).toEqual({ title: 'New' });
  });
});
