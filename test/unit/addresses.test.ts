import { needsHttps } from '../../server/src/contract/addresses';

describe('needsHttps', () => {
  it.each([
    ['http://cms.example.com/api/publish-bridge', true],
    ['http://192.168.1.20:1337/api/publish-bridge', true],
    ['HTTP://CMS.EXAMPLE.COM/', true],
    ['https://cms.example.com/api/publish-bridge', false],
    ['http://localhost:1337/api/publish-bridge', false],
    ['http://LOCALHOST:1337/', false],
    ['http://127.0.0.1:1337/', false],
    ['http://[::1]:1337/', false],
    ['http://blog.localhost:1337/', false],
    ['not a url', false],
  ])('%s needs HTTPS: %s', (url, expected) => {
    expect(needsHttps(url)).toBe(expected);
  });
});
