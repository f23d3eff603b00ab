import config from '../../server/src/config';
import { connectionLocator, connectionsOf, keyVariableOf } from '../../server/src/config/connections';
import { canonicalPath } from '../../server/src/utils/prefix-path';

const PREFIX = '/api/publish-bridge';

const validate = (connections: unknown) => () => config.validator({ ...config.default, connections });

describe('connections in config', () => {
  test('without connections, the site has one, "default", at the prefix, keyed by PUBLISH_BRIDGE_API_KEY', () => {
    expect(connectionsOf({ prefix: PREFIX })).toEqual([
      { name: 'default', path: PREFIX, keyVariable: 'PUBLISH_BRIDGE_API_KEY', overrides: {} },
    ]);
    expect(connectionsOf({ prefix: PREFIX, connections: {} })).toHaveLength(1);
  });

  test('each connection lives at {prefix}/{name} unless it sets a path; "default" at the prefix', () => {
    const connections = connectionsOf({
      prefix: PREFIX,
      connections: {
        default: { locale: 'en' },
        fr: { locale: 'fr', capabilities: { 'pages.list': true } },
        'partner-a': { path: '/api/partner' },
      },
    });
    expect(connections).toEqual([
      { name: 'default', path: PREFIX, keyVariable: 'PUBLISH_BRIDGE_API_KEY', overrides: { locale: 'en' } },
      {
        name: 'fr',
        path: `${PREFIX}/fr`,
        keyVariable: 'PUBLISH_BRIDGE_API_KEY_FR',
        overrides: { locale: 'fr', capabilities: { 'pages.list': true } },
      },
      {
        name: 'partner-a',
        path: '/api/partner',
        keyVariable: 'PUBLISH_BRIDGE_API_KEY_PARTNER_A',
        overrides: {},
      },
    ]);
    expect(keyVariableOf('partner-a')).toBe('PUBLISH_BRIDGE_API_KEY_PARTNER_A');
  });

  test('valid connections pass the boot check', () => {
    expect(validate({ en: { locale: 'en' }, fr: { locale: 'fr', path: '/api/fr' } })).not.toThrow();
  });

  test('a connection may set its own timezone, URL templates, site, text and image options, each key of an object option alone', () => {
    expect(
      validate({
        fr: {
          timezone: 'Europe/Paris',
          urlTemplates: { post: 'https://example.com/fr/{slug}' },
          site: { name: 'Le site' },
          richtextFormat: 'markdown',
          adoptExistingEntries: true,
          content: { maxBlocks: 500 },
          media: { maxBytes: 2048, allowedHosts: ['cdn.internal'] },
        },
      })
    ).not.toThrow();
  });

  test.each([
    [{ FR: {} }, /connections\.FR: must be 1 to 32 lower-case letters/],
    [{ fr_ca: {} }, /connections\.fr_ca: must be 1 to 32 lower-case letters/],
    [{ posts: {} }, /connections\.posts: must not be the name of a contract route/],
    [{ fr: { locale: 'French' } }, /connections\.fr\.locale: must be a locale code/],
    [{ fr: { path: 'fr' } }, /connections\.fr\.path: must be a path starting with "\/"/],
    [{ fr: { prefix: '/api/fr' } }, /connections\.fr: Unrecognized key: "prefix"/],
    [{ fr: { capabilities: { comments: true } } }, /connections\.fr\.capabilities/],
    [{ fr: { timezone: 'Paris' } }, /connections\.fr\.timezone: must be an IANA time zone/],
    [
      { fr: { urlTemplates: { post: '/fr/{slug}' } } },
      /connections\.fr\.urlTemplates\.post: must be an absolute/,
    ],
    [{ fr: { media: { maxBytes: 1 } } }, /connections\.fr\.media\.maxBytes/],
    // What bounds the whole process stays the site's: one connection cannot raise it for all.
    [
      { fr: { media: { maxPixelsDecodingAtOnce: 1e9 } } },
      /connections\.fr\.media: Unrecognized key: "maxPixelsDecodingAtOnce"/,
    ],
    [{ fr: { bodyLimit: 1e9 } }, /connections\.fr: Unrecognized key: "bodyLimit"/],
    [{ fr: { scheduling: { enabled: false } } }, /connections\.fr: Unrecognized key: "scheduling"/],
    [
      { en: { path: '/api/shared' }, fr: { path: '/API/Shared' } },
      /connections\.fr\.path: has the same path as connection "en"/,
    ],
    [
      { default: {}, fr: { path: `${PREFIX}/pages` } },
      /connections\.fr\.path: lies under connection "default"'s \/pages routes/,
    ],
    [
      { en: { path: '/api/pb' }, fr: { path: '/api/pb/posts/fr' } },
      /connections\.fr\.path: lies under connection "en"'s \/posts routes/,
    ],
  ])('%j is refused at boot with a message naming it', (connections, message) => {
    expect(validate(connections)).toThrow(message);
  });
});

describe("finding a request's connection by its path", () => {
  const connections = connectionsOf({
    prefix: PREFIX,
    connections: { default: {}, fr: {}, partner: { path: '/api/partner/feed' } },
  });
  const locate = connectionLocator(connections);
  const located = (path: string) => {
    const found = locate(canonicalPath(path));
    return found && [found.connection.name, found.pathBelow];
  };

  test.each([
    [`${PREFIX}/posts/abc`, ['default', '/posts/abc']],
    [`${PREFIX}`, ['default', '']],
    [`${PREFIX}/fr/posts`, ['fr', '/posts']],
    [`${PREFIX}/fr`, ['fr', '']],
    [`/API/Publish-Bridge/FR/pages`, ['fr', '/pages']],
    [`${PREFIX}/french/posts`, ['default', '/french/posts']],
    ['/api/partner/feed/handshake', ['partner', '/handshake']],
  ])('%s belongs to %j', (path, expected) => {
    expect(located(path)).toEqual(expected);
  });

  test.each(['/api/partner', '/api/publish', '/api/articles', '/'])('%s belongs to none', (path) => {
    expect(located(path)).toBeUndefined();
  });
});
