import type { PostCreate } from '../../server/src/contract/schemas';

let made = 0;

/**
 * A post body with every contract field a publisher sends (section 2.1) but `featured_image`,
 * which makes the site download a file: a test that wants one passes the URL of its image server.
 * `source_id` is new on each call, so two calls make two posts; `overrides` replace fields whole.
 */
export function fullPost(overrides: Partial<PostCreate> = {}): PostCreate {
  made += 1;
  return {
    title: 'A full post',
    content: '<h2>Part</h2><p>Body with <a href="https://example.com/x">a link</a>.</p><ul><li>one</li></ul>',
    excerpt: 'First excerpt',
    status: 'publish',
    date: '2026-01-02 03:04:05',
    categories: ['Brewing', 'Roasting'],
    tags: ['coffee', 'kettles'],
    author: 'Ada Brewer',
    reading_time: '3 min',
    seo: { title: 'SEO title', description: 'SEO description', keywords: ['brew', 'roast'] },
    source_id: `full-post-${Date.now()}-${made}`,
    ...overrides,
  };
}
