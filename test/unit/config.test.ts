import config from '../../server/src/config';

const validate = (overrides: Record<string, unknown>) => () =>
  config.validator({ ...config.default, ...overrides });

describe('plugin config validation at boot', () => {
  test('the defaults are valid', () => {
    expect(validate({})).not.toThrow();
  });

  test.each(['en', 'fr-FR', 'zh-Hans', 'es-419'])('locale %j is accepted', (locale) => {
    expect(validate({ locale })).not.toThrow();
  });

  test.each([
    [{ prefix: 'api/publish-bridge' }, /prefix: must be a path starting with "\/"/],
    [
      { prefix: '/api/publish-bridge/' },
      /prefix: must be a path starting with "\/" and not ending with "\/"/,
    ],
    [{ bodyLimit: 10 }, /bodyLimit/],
    [{ timestampToleranceMs: '5 minutes' }, /timestampToleranceMs/],
    [{ capabilities: { 'posts.delete': true, comments: true } }, /capabilities/],
    [
      { urlTemplates: { post: 'https://example.com/blog/' } },
      /urlTemplates\.post: must be an absolute http\(s\) URL containing \{slug\} or \{id\}/,
    ],
    [{ timezone: 'Mars/Olympus' }, /timezone: must be an IANA time zone/],
    [{ richtextFormat: 'rtf' }, /richtextFormat/],
    [{ content: { maxBlocks: 0 } }, /content\.maxBlocks/],
    [
      { content: { allowedEmbedHosts: ['https://www.youtube.com/'] } },
      /content\.allowedEmbedHosts\.0: must be a host name in lower case/,
    ],
    [{ media: { ...config.default.media, maxPixels: 300_000_000 } }, /media\.maxPixels/],
    [{ media: { ...config.default.media, maxPixelsPerRequest: 1000 } }, /media\.maxPixelsPerRequest/],
    [{ media: { ...config.default.media, maxPixelsDecodingAtOnce: 1000 } }, /media\.maxPixelsDecodingAtOnce/],
    [{ locale: 'French' }, /locale: must be a locale code of the site, such as "en" or "fr-FR"/],
    [{ locale: '' }, /locale: must be a locale code/],
    [{ contentTypes: { post: { uid: 'api::article.article' } } }, /contentTypes\.post\.fields/],
    [{ contentTypes: { comment: { uid: 'api::comment.comment', fields: {} } } }, /contentTypes/],
    [{ secretKey: 'x' }, /secretKey|Unrecognized key/],
  ])('%j is refused with a message naming the option', (overrides, message) => {
    expect(validate(overrides)).toThrow(/Invalid config for plugin "publish-bridge" in config\/plugins/);
    expect(validate(overrides)).toThrow(message);
  });
});
