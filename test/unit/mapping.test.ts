import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_MAPPING } from '../../server/src/mapping/catalogue';
import { fitNames, fitText, cutAtWordBoundary, maxLengthOf } from '../../server/src/mapping/fit';
import config from '../../server/src/config';
import examplePlugins from '../../example/config/plugins.js';
import { unusedPluginTypes } from '../../server/src/mapping/unused-types';
import { capabilitySupport } from '../../server/src/mapping/capability-support';
import {
  describeZone,
  resolveMapping,
  type MappingConfig,
  type SchemaLookup,
} from '../../server/src/mapping/resolve';

const ROOT = path.resolve(__dirname, '..', '..');
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

/** The real schemas: the plugin's content types and the example site's blog types. */
const SCHEMAS: Record<string, string> = {
  'plugin::publish-bridge.post': 'server/src/content-types/post/schema.json',
  'plugin::publish-bridge.blog-category': 'server/src/content-types/blog-category/schema.json',
  'plugin::publish-bridge.tag': 'server/src/content-types/tag/schema.json',
  'plugin::publish-bridge.author': 'server/src/content-types/author/schema.json',
  'plugin::publish-bridge.product': 'server/src/content-types/product/schema.json',
  'plugin::publish-bridge.product-category': 'server/src/content-types/product-category/schema.json',
  'api::article.article': 'example/src/api/article/content-types/article/schema.json',
  'api::category.category': 'example/src/api/category/content-types/category/schema.json',
  'api::author.author': 'example/src/api/author/content-types/author/schema.json',
  'api::story.story': 'example/src/api/story/content-types/story/schema.json',
  'api::item.item': 'example/src/api/item/content-types/item/schema.json',
};
const schemaOf: SchemaLookup = (uid) => {
  if (!SCHEMAS[uid]) return undefined;
  const schema = readJson(SCHEMAS[uid]);
  return { attributes: schema.attributes, draftAndPublish: schema.options?.draftAndPublish === true };
};
/** The example's shared components (seo, and the example template's rich-text, media, quote, slider). */
const componentOf: SchemaLookup = (uid) => {
  const file = path.join('example/src/components', ...uid.split('.')) + '.json';
  return fs.existsSync(path.join(ROOT, file))
    ? { attributes: readJson(file).attributes, draftAndPublish: false }
    : undefined;
};

/** The example site's own config, read with Strapi's env helper defaults. */
const defaults = <T>(_name: string, fallback?: T) => fallback;
const env = Object.assign(defaults, { array: defaults, int: defaults, bool: defaults, json: defaults });
const exampleMapping = (variant: string): MappingConfig => {
  const variantEnv = Object.assign(
    (name: string, fallback?: unknown) => (name === 'PUBLISH_BRIDGE_CONTENT_TYPES' ? variant : fallback),
    env
  );
  return examplePlugins({ env: variantEnv })['publish-bridge'].config.contentTypes;
};
const SITE = exampleMapping('site');
const TEMPLATE = exampleMapping('template');

describe('resolveMapping', () => {
  test('the plugin types resolve with no problem and every contract field stored', () => {
    const { problems, resources } = resolveMapping({}, schemaOf, componentOf);
    expect(problems).toEqual([]);
    for (const resource of Object.values(resources)) expect(resource.unmapped).toEqual([]);
    expect(resources.post).toMatchObject({
      uid: DEFAULT_MAPPING.post.uid,
      draftAndPublish: true,
      nameField: 'title',
      slugField: 'slug',
    });
    expect(resources.post.fields.seo.adapter).toBe('seoFields');
    expect(resources.post.fields.categories).toMatchObject({
      adapter: 'relation',
      targetKind: 'blogCategory',
      multiple: true,
    });
    expect(resources.post.fields.author).toMatchObject({
      adapter: 'relation',
      targetKind: 'author',
      multiple: false,
    });
    expect(resources.post.fields.featured_image.adapter).toBe('text');
  });

  test('the example blog types get an adapter per attribute type, and unmapped fields are listed', () => {
    const { problems, resources } = resolveMapping(SITE, schemaOf, componentOf);
    expect(problems).toEqual([]);
    const post = resources.post;
    expect(post.fields.content.adapter).toBe('blocks');
    expect(post.fields.date.adapter).toBe('datetime');
    expect(post.fields.tags).toMatchObject({ adapter: 'names', attributeType: 'json' });
    expect(post.fields.featured_image).toMatchObject({ adapter: 'media', multiple: false });
    expect(post.fields.seo.adapter).toBe('seoComponent');
    expect(post.fields.seo.seo).toEqual({
      title: {
        attribute: 'metaTitle',
        adapter: 'text',
        attributeType: 'string',
        limits: { max: 60 },
        required: true,
      },
      description: {
        attribute: 'metaDescription',
        adapter: 'text',
        attributeType: 'string',
        limits: { min: 50, max: 160 },
        required: true,
      },
      keywords: { attribute: 'keywords', adapter: 'names', attributeType: 'text', limits: {} },
      canonical_url: { attribute: 'canonicalURL', adapter: 'text', attributeType: 'string', limits: {} },
    });
    expect(post.fields.reading_time).toMatchObject({ adapter: 'text', attribute: 'readingTime' });
    expect(post.unmapped).toEqual([]);
    expect(resources.author.unmapped).toEqual(['username', 'first_name', 'last_name', 'role', 'url']);
    expect(resources.tag.uid).toBe('plugin::publish-bridge.tag');
  });

  test('an unmapped source_id is not listed as not stored where the identity table remembers it', () => {
    const { resources } = resolveMapping(
      {
        post: { uid: 'api::article.article', fields: { title: 'title', content: 'content' } },
        product: { uid: 'api::item.item', fields: { name: 'name' } },
      },
      schemaOf,
      componentOf
    );
    // A republish of the same source_id updates the same post even unmapped (posts.ts, linkSource).
    expect(resources.post.unmapped).not.toContain('source_id');
    expect(resources.post.unmapped).toContain('reading_time');
    // A product's source_id is only a text: unmapped, it is not kept anywhere.
    expect(resources.product.unmapped).toContain('source_id');
  });

  test('a missing content type or attribute is named, with what exists', () => {
    const { problems } = resolveMapping(
      {
        post: { uid: 'api::nope.nope', fields: { title: 'title' } },
        author: { uid: 'api::author.author', fields: { display_name: 'fullName' } },
      },
      schemaOf,
      componentOf
    );
    expect(problems).toEqual([
      'contentTypes.post.uid: "api::nope.nope" is not a content type of this site.',
      'contentTypes.author.fields.display_name: api::author.author has no attribute "fullName" (its attributes: name, email, bio, articles, stories).',
      'contentTypes.author.fields.display_name: must name a text attribute; author entries are found and titled by it.',
    ]);
  });

  test('an attribute of the wrong type, an unknown contract field and a relation to an unmapped type are refused', () => {
    const { problems } = resolveMapping(
      {
        post: {
          uid: 'api::article.article',
          fields: { title: 'title', content: 'cover', subtitle: 'title', categories: 'categories' },
        },
      },
      schemaOf,
      componentOf
    );
    expect(problems).toEqual([
      'contentTypes.post.fields.content: attribute "cover" of api::article.article is of type "media", which cannot hold content.',
      'contentTypes.post.fields.subtitle: "subtitle" is not a contract field of post (known: title, slug, content, excerpt, date, categories, tags, author, featured_image, reading_time, seo, source_id).',
      'contentTypes.post.fields.categories: relation "categories" points to api::category.category, but blogCategory is stored in plugin::publish-bridge.blog-category; map contentTypes.blogCategory to api::category.category or choose another attribute.',
    ]);
  });
});

describe('relations', () => {
  test("Strapi's example-template Article: one category and one author are single relations", () => {
    const { problems, resources } = resolveMapping(exampleMapping('template'), schemaOf, componentOf);
    expect(problems).toEqual([]);
    expect(resources.post.uid).toBe('api::story.story');
    expect(resources.post.fields.categories).toMatchObject({
      adapter: 'relation',
      attribute: 'category',
      multiple: false,
    });
    expect(resources.post.fields.author).toMatchObject({
      adapter: 'relation',
      targetKind: 'author',
      multiple: false,
    });
    expect(resources.post.fields.excerpt).toMatchObject({ adapter: 'text', limits: { max: 80 } });
  });

  test.each([
    ['manyToMany', true],
    ['oneToMany', true],
    ['manyWay', true],
    ['manyToOne', false],
    ['oneToOne', false],
    ['oneWay', false],
  ])('a %s relation holds a list: %p', (relation, multiple) => {
    const article = schemaOf('api::article.article')!;
    const lookup: SchemaLookup = (uid) =>
      uid === 'api::article.article'
        ? {
            ...article,
            attributes: { ...article.attributes, author: { ...article.attributes.author, relation } },
          }
        : schemaOf(uid);
    const { resources } = resolveMapping(SITE, lookup, componentOf);
    expect(resources.post.fields.author.multiple).toBe(multiple);
  });
});

describe('fitText', () => {
  const string = { attributeType: 'string', limits: {} };
  const description = { attributeType: 'text', limits: { max: 80 } };

  test('a string attribute holds 255 characters, and its own maxLength when smaller', () => {
    expect(maxLengthOf(string)).toBe(255);
    expect(maxLengthOf({ attributeType: 'string', limits: { max: 60 } })).toBe(60);
    expect(maxLengthOf({ attributeType: 'string', limits: { max: 400 } })).toBe(255);
    expect(maxLengthOf({ attributeType: 'text', limits: {} })).toBeUndefined();
    expect(maxLengthOf({ attributeType: 'uid', limits: {} })).toBe(255);
  });

  test('text that fits is kept; longer text is cut at a word boundary', () => {
    expect(fitText('A short description.', description)).toEqual({
      outcome: 'fits',
      value: 'A short description.',
    });
    const long =
      'A slow morning with a hand grinder, three brew methods and one lesson about water temperature.';
    const fitted = fitText(long, description);
    expect(fitted).toEqual({
      outcome: 'cut',
      value: 'A slow morning with a hand grinder, three brew methods and one lesson about',
      max: 80,
    });
  });

  test('an identifier is never cut: it is too long', () => {
    expect(fitText('s'.repeat(300), string, { cuttable: false })).toEqual({ outcome: 'tooLong', max: 255 });
    expect(fitText('s'.repeat(255), string, { cuttable: false })).toEqual({
      outcome: 'fits',
      value: 's'.repeat(255),
    });
  });

  test('text shorter than minLength is too short', () => {
    const bounded = { attributeType: 'string', limits: { min: 50, max: 160 } };
    expect(fitText('Too short.', bounded)).toEqual({ outcome: 'tooShort', min: 50 });
    expect(fitText('x'.repeat(50), bounded)).toEqual({ outcome: 'fits', value: 'x'.repeat(50) });
  });
});

describe('fitNames', () => {
  test('keeps whole names in order while they fit, and says which were dropped', () => {
    const bounds = { attributeType: 'string', limits: { max: 20 } };
    expect(fitNames(['coffee', 'grinder', 'espresso'], ', ', bounds)).toEqual({
      value: 'coffee, grinder',
      dropped: ['espresso'],
    });
    expect(fitNames(['coffee'], ', ', { attributeType: 'text', limits: {} })).toEqual({
      value: 'coffee',
      dropped: [],
    });
  });
});

describe("content in a dynamic zone (the example template's Article)", () => {
  const storyWith = (content: unknown): MappingConfig => ({
    ...TEMPLATE,
    post: { uid: 'api::story.story', fields: { title: 'title', content: content as string } },
  });
  const TEMPLATE_ZONE = {
    text: { uid: 'shared.rich-text', attribute: 'body', attributeType: 'richtext' },
    image: { uid: 'shared.media', attribute: 'file' },
    quote: { uid: 'shared.quote', body: 'body', title: 'title', limits: { maxTitle: 255 } },
  };

  test("content: 'blocks' picks the rich-text, media and quote components the zone allows", () => {
    const { problems, resources } = resolveMapping(TEMPLATE, schemaOf, componentOf);
    expect(problems).toEqual([]);
    expect(resources.post.fields.content).toMatchObject({
      adapter: 'dynamicZone',
      attribute: 'blocks',
      zone: TEMPLATE_ZONE,
    });
    // A product's description goes into the Item's zone of the same components.
    expect(resources.product.fields.description).toMatchObject({
      adapter: 'dynamicZone',
      attribute: 'blocks',
      zone: TEMPLATE_ZONE,
    });
    expect(describeZone('blocks', resources.post.fields.content.zone!)).toBe(
      'dynamic zone "blocks": text in shared.rich-text.body, images in shared.media.file, quotes in shared.quote (body, title)'
    );
  });

  test('the explicit form names the components, and false leaves quotes or images in the text', () => {
    const explicit = {
      attribute: 'blocks',
      components: { text: 'shared.rich-text', image: 'shared.media', quote: false },
    };
    const { problems, resources } = resolveMapping(storyWith(explicit), schemaOf, componentOf);
    expect(problems).toEqual([]);
    expect(resources.post.fields.content.zone).toEqual({
      text: TEMPLATE_ZONE.text,
      image: TEMPLATE_ZONE.image,
    });
    expect(describeZone('blocks', resources.post.fields.content.zone!)).toMatch(
      /quotes stay in the text \(no quote component\)$/
    );
  });

  test('a named component outside the zone, or of the wrong shape, stops the boot naming the option', () => {
    const { problems } = resolveMapping(
      storyWith({
        attribute: 'blocks',
        components: { text: 'shared.seo', image: 'shared.slider', quote: 'shared.media' },
      }),
      schemaOf,
      componentOf
    );
    expect(problems).toEqual([
      'contentTypes.post.fields.content.components.text: "shared.seo" is not a component of dynamic zone "blocks" (it allows: shared.media, shared.quote, shared.rich-text, shared.slider).',
      'contentTypes.post.fields.content.components.image: component shared.slider cannot hold images: it needs exactly one single (not multiple) media attribute.',
      'contentTypes.post.fields.content.components.quote: component shared.media cannot hold quotes: it needs a text attribute "body" (and optionally a string "title").',
    ]);
  });

  test('a zone without a text component, and the zone form on another attribute, are refused', () => {
    const onlyMedia: SchemaLookup = (uid) => {
      const schema = schemaOf(uid);
      if (uid !== 'api::story.story' || !schema) return schema;
      return {
        ...schema,
        attributes: {
          ...schema.attributes,
          blocks: { type: 'dynamiczone', components: ['shared.media', 'shared.slider'] },
        },
      };
    };
    expect(resolveMapping(storyWith('blocks'), onlyMedia, componentOf).problems).toEqual([
      'contentTypes.post.fields.content: dynamic zone "blocks" has no component that can hold text (one with exactly one richtext or blocks attribute, such as shared.rich-text); add one to the zone or map this field elsewhere.',
    ]);
    expect(resolveMapping(storyWith({ attribute: 'description' }), schemaOf, componentOf).problems).toEqual([
      'contentTypes.post.fields.content: the { attribute, components } form is for dynamic zones; "description" of api::story.story is of type "text", so map it as "description".',
    ]);
    expect(resolveMapping(storyWith('blocks'), schemaOf, componentOf).problems).toEqual([]);
  });

  test('a component with a required attribute the plugin cannot fill is not chosen', () => {
    const requiredCaption: SchemaLookup = (uid) => {
      const schema = componentOf(uid);
      if (uid !== 'shared.media' || !schema) return schema;
      return { ...schema, attributes: { ...schema.attributes, credit: { type: 'string', required: true } } };
    };
    const { problems, resources } = resolveMapping(storyWith('blocks'), schemaOf, requiredCaption);
    expect(problems).toEqual([]);
    expect(resources.post.fields.content.zone?.image).toBeUndefined();
  });

  test('the plugin config accepts the zone form next to the seo form, and names a bad one', () => {
    const withPost = (fields: Record<string, unknown>) => ({
      ...config.default,
      contentTypes: { post: { uid: 'api::story.story', fields } },
    });
    expect(() =>
      config.validator(
        withPost({
          content: { attribute: 'blocks', components: { text: 'shared.rich-text', quote: false } },
          seo: { title: 'metaTitle' },
        })
      )
    ).not.toThrow();
    expect(() =>
      config.validator(withPost({ content: { attribute: 'blocks', components: { txt: 'x' } } }))
    ).toThrow(
      'contentTypes.post.fields.content: must be an attribute name, an seo object { title, description, keywords, canonical_url }, or a dynamic zone object { attribute, components: { text, image, quote } }'
    );
  });
});

describe('cutAtWordBoundary', () => {
  test('keeps text that fits', () => {
    expect(cutAtWordBoundary('Short title', 60)).toBe('Short title');
  });

  test('cuts at the last word boundary and drops trailing punctuation', () => {
    expect(cutAtWordBoundary('How to grind coffee at home, for espresso and pour-over', 30)).toBe(
      'How to grind coffee at home'
    );
    expect(cutAtWordBoundary('one two three', 9)).toBe('one two');
  });

  test('cuts a single long word hard when no boundary is near', () => {
    expect(cutAtWordBoundary('Supercalifragilisticexpialidocious', 10)).toBe('Supercalif');
  });
});

describe('unusedPluginTypes', () => {
  const schemas = Object.fromEntries(Object.entries(SCHEMAS).map(([uid, file]) => [uid, readJson(file)]));
  const plugin = (name: string) => `plugin::publish-bridge.${name}`;
  const resourceUids = (mapping: MappingConfig) =>
    Object.values(resolveMapping(mapping, schemaOf, componentOf).resources).map(({ uid }) => uid);

  test('the plugin mapping uses every plugin type', () => {
    expect(unusedPluginTypes(resourceUids({}), schemas)).toEqual([]);
  });

  test("types whose resources the site stores in its own are unused, although the plugin's tag still lists their posts", () => {
    expect(unusedPluginTypes(resourceUids(SITE), schemas)).toEqual([
      plugin('post'),
      plugin('blog-category'),
      plugin('author'),
    ]);
    expect(unusedPluginTypes(resourceUids(TEMPLATE), schemas)).toEqual([
      plugin('post'),
      plugin('blog-category'),
      plugin('author'),
      plugin('product'),
    ]);
  });

  test("a type a used type's relation points to stays, as do the types it points to in turn", () => {
    // The plugin's post, mapped without its categories and author: its editors still pick both.
    const uids = [plugin('post'), 'api::category.category', 'api::author.author'];
    expect(unusedPluginTypes(uids, schemas)).toEqual([plugin('product'), plugin('product-category')]);
    // No resource in the plugin's types, but a type of the site relates to its product categories.
    const withLink = {
      ...schemas,
      'api::shop.shop': {
        attributes: { featured: { type: 'relation', target: plugin('product-category') } },
      },
    };
    expect(unusedPluginTypes([], withLink)).toEqual([
      plugin('post'),
      plugin('blog-category'),
      plugin('tag'),
      plugin('author'),
      plugin('product'),
    ]);
  });
});

describe('capabilitySupport', () => {
  const support = (mapping: MappingConfig) =>
    capabilitySupport(resolveMapping(mapping, schemaOf, componentOf));
  const onByDefault = (mapping: MappingConfig) =>
    Object.entries(support(mapping))
      .filter(([, { byDefault }]) => byDefault)
      .map(([name]) => name);

  test("the plugin's types: everything but products, which a site opts in to", () => {
    expect(onByDefault({})).toEqual(['posts.delete', 'blog_categories', 'authors', 'seo', 'pages.list']);
    expect(Object.values(support({})).every(({ servable }) => servable)).toBe(true);
  });

  test('a post mapping without SEO cannot serve seo, and says what to map', () => {
    const { seo } = support(TEMPLATE);
    expect(seo).toMatchObject({ servable: false, byDefault: false });
    expect(seo.reason).toContain('api::story.story');
    expect(seo.reason).toContain('config/plugins');
    expect(support(SITE).seo).toEqual({ servable: true, byDefault: true });
  });

  test("products mapped onto the site's own type are on; product categories follow their own mapping or the products' categories", () => {
    expect(onByDefault(TEMPLATE)).toContain('products');
    expect(onByDefault(TEMPLATE)).not.toContain('product_categories');
    const withCategories: MappingConfig = {
      product: { uid: 'plugin::publish-bridge.product', fields: { name: 'name' } },
      productCategory: { uid: 'api::category.category', fields: { name: 'name' } },
    };
    expect(onByDefault(withCategories)).toContain('product_categories');
    expect(onByDefault(withCategories)).not.toContain('products');
  });
});
