import { readmeBlock } from '../../scripts/lib/readme-blocks.js';

/**
 * The template-site test (`npm run test:template`) follows the README's steps with the README's
 * own code blocks; these are the blocks it takes, found by their markers.
 */
describe("the README's blocks the template-site test runs", () => {
  it('finds the import line for the top of config/plugins.ts', () => {
    expect(readmeBlock('plugins-import')).toBe(
      "import type { PublishBridgeConfig } from 'strapi-plugin-publish-bridge';"
    );
  });

  it("finds the example blog's added attributes as one JSON object", () => {
    const attributes = JSON.parse(readmeBlock('example-blog-attributes'));
    expect(Object.keys(attributes)).toEqual(['publishedDate', 'tags', 'seo', 'readingTime', 'sourceId']);
    expect(attributes.seo).toMatchObject({ type: 'component', component: 'shared.seo' });
  });

  it("finds the example blog's mapping as a key to add, naming each added attribute", () => {
    const mapping = readmeBlock('example-blog-mapping');
    expect(mapping.trimStart().startsWith("'publish-bridge': {")).toBe(true);
    expect(mapping.trimEnd().endsWith('},')).toBe(true);
    expect(mapping).not.toMatch(/export default|import /);
    const attributes = Object.keys(JSON.parse(readmeBlock('example-blog-attributes')));
    for (const attribute of attributes) expect(mapping).toContain(`'${attribute}'`);
  });

  it('finds the public URL for config/server.ts, read from PUBLIC_URL with no default', () => {
    const lines = readmeBlock('public-url');
    expect(lines).toContain("url: env('PUBLIC_URL'),");
    expect(lines).not.toMatch(/export default|=>/);
  });

  it('takes a block out of a list item without its indentation', () => {
    const markdown = [
      '1. Step:',
      '',
      '   <!-- readme-test: step -->',
      '   ```ts',
      '     indented();',
      '   ```',
      '',
    ].join('\n');
    expect(readmeBlock('step', markdown)).toBe('  indented();');
  });

  it('names the marker when its block is missing or appears twice', () => {
    expect(() => readmeBlock('step', 'no blocks here')).toThrow(
      'README.md has no fenced code block(s) right after "<!-- readme-test: step -->"'
    );
    const twice = [
      '<!-- readme-test: step -->',
      '```',
      'a',
      '```',
      '<!-- readme-test: step -->',
      '```',
      'b',
      '```',
    ].join('\n');
    expect(() => readmeBlock('step', twice)).toThrow('README.md has 2 fenced code block(s)');
  });
});
