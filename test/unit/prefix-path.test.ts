import { canonicalPath, pathBelowPrefix } from '../../server/src/utils/prefix-path';

const PREFIX = '/api/publish-bridge';

describe("pathBelowPrefix: every spelling Strapi or a proxy could route to the plugin is the plugin's", () => {
  it.each([
    ['/api/publish-bridge/pages', '/pages'],
    ['/API/PUBLISH-BRIDGE/PAGES', '/pages'],
    ['/Api/Publish-Bridge/Pages', '/pages'],
    ['/api/publish-bridge/pages/', '/pages'],
    ['//api/publish-bridge/pages', '/pages'],
    ['/api//publish-bridge//pages', '/pages'],
    ['/api/./publish-bridge/./pages', '/pages'],
    ['/api/other/../publish-bridge/pages', '/pages'],
    ['/%61pi/publish-bridg%65/p%61ges', '/pages'],
    ['/api/publish%2Dbridge/pages', '/pages'],
    ['/api/publish-bridge%2Fpages', '/pages'],
    ['/api\\publish-bridge\\pages', '/pages'],
    ['/api/publish-bridge/posts/AbC', '/posts/abc'],
    ['/api/publish-bridge', ''],
    ['/API/Publish-Bridge/', ''],
  ])('%s is below the prefix as %s', (path, below) => {
    expect(pathBelowPrefix(path, PREFIX)).toBe(below);
  });

  it.each([
    '/api/publish-bridge-other/pages',
    '/api/publish-bridg',
    '/api/articles',
    '/publish-bridge/settings',
    '/api/publish-bridge/../articles',
    '/',
    '',
  ])('%s is not below the prefix', (path) => {
    expect(pathBelowPrefix(path, PREFIX)).toBeUndefined();
  });

  it('compares a prefix configured with capitals the same way', () => {
    expect(pathBelowPrefix('/api/hooks/posts', '/api/Hooks')).toBe('/posts');
  });

  it('keeps a malformed escape as written and still decodes the others', () => {
    expect(canonicalPath('/api/%zz/publish-bridg%65')).toBe('/api/%zz/publish-bridge');
  });

  it('never climbs above the root', () => {
    expect(canonicalPath('/../../api/publish-bridge')).toBe('/api/publish-bridge');
  });
});
