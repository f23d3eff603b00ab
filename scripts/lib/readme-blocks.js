/**
 * The README's own code blocks, for the tests that follow its steps: each block a test runs is
 * marked by an HTML comment on the line before its fence, `<!-- readme-test: <name> -->`, which
 * GitHub does not show. A test that took a copy of the snippet instead would pass while the
 * README's steps no longer work.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const README = path.resolve(__dirname, '..', '..', 'README.md');

/**
 * The code of the fenced block marked `name`, without its fences and with the indentation a
 * list item gives it removed; throws naming the marker when the README has none, or more than one.
 * @param {string} name
 * @param {string} [markdown] the README's text (read from the repository when not given)
 */
function readmeBlock(name, markdown = fs.readFileSync(README, 'utf8')) {
  const marker = `<!-- readme-test: ${name} -->`;
  const blocks = [
    ...markdown.matchAll(/^([ \t]*)<!-- readme-test: (\S+) -->\n\1(`{3,})[^\n]*\n([\s\S]*?)\n\1\3[ \t]*$/gm),
  ].filter((match) => match[2] === name);
  if (blocks.length !== 1)
    throw new Error(
      `README.md has ${blocks.length === 0 ? 'no' : blocks.length} fenced code block(s) right after "${marker}"; the test needs exactly one.`
    );
  const [, indent, , , code] = blocks[0];
  return code
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n');
}

module.exports = { readmeBlock, README };
