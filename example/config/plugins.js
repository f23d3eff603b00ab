const path = require('path');
const { exampleDir } = require('../src/example-dir');

/**
 * Posts, blog categories and authors go into the example's own blog types, as a real site
 * would have them; tags, products and product categories use the plugin's types. Set
 * PUBLISH_BRIDGE_CONTENT_TYPES=plugin to store everything in the plugin's types instead, or
 * =template to store posts in the Story type, shaped like Strapi's example-template Article, or
 * =localized to store them in the Journal type, which has Strapi's i18n on.
 */
const SITE_CONTENT_TYPES = {
  post: {
    uid: 'api::article.article',
    fields: {
      title: 'title',
      slug: 'slug',
      content: 'content',
      excerpt: 'description',
      date: 'publishedDate',
      categories: 'categories',
      tags: 'tags',
      author: 'author',
      featured_image: 'cover',
      reading_time: 'readingTime',
      seo: 'seo',
      source_id: 'sourceId',
    },
  },
  blogCategory: {
    uid: 'api::category.category',
    fields: { name: 'name', slug: 'slug', description: 'description', parent: 'parent' },
  },
  author: { uid: 'api::author.author', fields: { display_name: 'name', email: 'email', description: 'bio' } },
};

/**
 * PUBLISH_BRIDGE_CONTENT_TYPES=template: posts go into the Story, the Article of Strapi's own
 * example blog (create-strapi-app --example): one category, one author, an 80-character
 * description, the body in the `blocks` dynamic zone. Products go into the Item, whose
 * description is the same kind of zone. Categories and authors stay where 'site' puts them.
 */
const TEMPLATE_CONTENT_TYPES = {
  ...SITE_CONTENT_TYPES,
  post: {
    uid: 'api::story.story',
    fields: {
      title: 'title',
      slug: 'slug',
      excerpt: 'description',
      featured_image: 'cover',
      author: 'author',
      categories: 'category',
      content: 'blocks',
    },
  },
  product: {
    uid: 'api::item.item',
    fields: { name: 'name', slug: 'slug', short_description: 'shortDescription', description: 'blocks' },
  },
};

/**
 * PUBLISH_BRIDGE_CONTENT_TYPES=localized: posts go into the Journal, the Article's shape with
 * Strapi's i18n on, in the locale PUBLISH_BRIDGE_LOCALE names (default: the site's default
 * locale). Categories and authors stay where 'site' puts them.
 */
const LOCALIZED_CONTENT_TYPES = {
  ...SITE_CONTENT_TYPES,
  post: { ...SITE_CONTENT_TYPES.post, uid: 'api::journal.journal' },
};

/**
 * PUBLISH_BRIDGE_CONTENT_TYPES=rich-excerpt: a test mapping, not one to copy. Posts go into the
 * plugin's post with the excerpt (plain text in the contract) in its `richtext` attribute and the
 * body in its `excerpt` text attribute: a text field a site renders as rich text.
 */
const RICH_EXCERPT_CONTENT_TYPES = {
  post: {
    uid: 'plugin::publish-bridge.post',
    fields: { title: 'title', slug: 'slug', excerpt: 'content', content: 'excerpt', source_id: 'sourceId' },
  },
};

const CONTENT_TYPES = {
  site: SITE_CONTENT_TYPES,
  template: TEMPLATE_CONTENT_TYPES,
  localized: LOCALIZED_CONTENT_TYPES,
  'rich-excerpt': RICH_EXCERPT_CONTENT_TYPES,
};

module.exports = ({ env }) => ({
  'users-permissions': {
    config: {
      jwtSecret: env('JWT_SECRET'),
    },
  },
  // PUBLISH_BRIDGE_HTML_RICHTEXT_EDITOR=true installs a stand-in for strapi-plugin-rich-text, which
  // makes every richtext attribute an HTML editor: the plugin then stores HTML there, not Markdown.
  ...(env.bool('PUBLISH_BRIDGE_HTML_RICHTEXT_EDITOR', false)
    ? {
        'richtext-editor': {
          enabled: true,
          resolve: path.resolve(exampleDir(), 'src/plugins/html-richtext-editor'),
        },
      }
    : {}),
  'publish-bridge': {
    // PUBLISH_BRIDGE_ENABLED=false starts the site without the plugin; its content and memory stay.
    enabled: env.bool('PUBLISH_BRIDGE_ENABLED', true),
    // Strapi 5.54 silently skips a relative `resolve`; the plugin is this repository's root.
    resolve: path.resolve(exampleDir(), '..'),
    config: {
      // Capabilities follow the mapping: seo where an SEO field is stored, products and product
      // categories where the site maps them to its own types. PUBLISH_BRIDGE_CAPABILITIES opts in
      // to more, e.g. "products,product_categories" for products kept in the plugin's types.
      capabilities: Object.fromEntries(
        env
          .array('PUBLISH_BRIDGE_CAPABILITIES', [])
          .filter(Boolean)
          .map((name) => [name, true])
      ),
      urlTemplates: {
        post: env('PUBLISH_BRIDGE_POST_URL', 'http://localhost:3000/blog/{slug}'),
        category: env('PUBLISH_BRIDGE_CATEGORY_URL', 'http://localhost:3000/blog/category/{slug}'),
        product: env('PUBLISH_BRIDGE_PRODUCT_URL', 'http://localhost:3000/shop/{slug}'),
        product_cat: env('PUBLISH_BRIDGE_PRODUCT_CATEGORY_URL', 'http://localhost:3000/shop/category/{slug}'),
      },
      prefix: env('PUBLISH_BRIDGE_PREFIX', '/api/publish-bridge'),
      timezone: env('PUBLISH_BRIDGE_TIMEZONE', 'UTC'),
      bodyTimeoutMs: env.int('PUBLISH_BRIDGE_BODY_TIMEOUT_MS', 30000),
      contentTypes: CONTENT_TYPES[env('PUBLISH_BRIDGE_CONTENT_TYPES', 'site')] ?? {},
      // true lets the publisher update and delete entries editors made, not only the plugin's own.
      adoptExistingEntries: env.bool('PUBLISH_BRIDGE_ADOPT_EXISTING_ENTRIES', false),
      // true makes one document of a source_id that connections of different locales publish.
      linkLocalizations: env.bool('PUBLISH_BRIDGE_LINK_LOCALIZATIONS', false),
      // The locale posts go to in types with i18n on, e.g. "fr"; unset: the site's default locale.
      ...(env('PUBLISH_BRIDGE_LOCALE') ? { locale: env('PUBLISH_BRIDGE_LOCALE') } : {}),
      // Several base URLs, each with its own key (PUBLISH_BRIDGE_API_KEY_<NAME>) and choices, as JSON,
      // e.g. {"en":{"locale":"en"},"fr":{"locale":"fr"}}; unset: one connection at the prefix.
      ...(env('PUBLISH_BRIDGE_CONNECTIONS') ? { connections: env.json('PUBLISH_BRIDGE_CONNECTIONS') } : {}),
      // A post sent to be published at a future date waits for it; checked every pollMs.
      scheduling: {
        enabled: env.bool('PUBLISH_BRIDGE_SCHEDULING', true),
        pollMs: env.int('PUBLISH_BRIDGE_SCHEDULING_POLL_MS', 30000),
      },
      // Image hosts on a private network, e.g. "cdn.internal,10.0.0.0/8"; public hosts need no entry.
      media: { allowedHosts: env.array('PUBLISH_BRIDGE_MEDIA_ALLOWED_HOSTS', []).filter(Boolean) },
      // The platform's log endpoint on a private network, e.g. "platform.internal"; a public one needs no entry.
      platform: { allowedHosts: env.array('PUBLISH_BRIDGE_PLATFORM_ALLOWED_HOSTS', []).filter(Boolean) },
    },
  },
});
