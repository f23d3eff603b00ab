import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { pluginConfigSchema } from '../../server/src/config';

/**
 * Messages that send the user somewhere (an option of the plugin config, a README section, a
 * variable of the example app) must name something that exists: a renamed option or heading
 * otherwise leaves a message pointing nowhere. The messages are the string and template
 * literals of the server and the admin's English texts; a template's placeholders are kept as
 * `{…}` so that nothing is read across them.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const PLACEHOLDER = '{…}';

type Message = { file: string; text: string };

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function literalsOf(file: string): Message[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const messages: Message[] = [];
  const relative = path.relative(ROOT, file);
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      messages.push({ file: relative, text: node.text });
    } else if (ts.isTemplateExpression(node)) {
      const text =
        node.head.text + node.templateSpans.map((span) => PLACEHOLDER + span.literal.text).join('');
      messages.push({ file: relative, text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return messages;
}

function adminTexts(): Message[] {
  const file = path.join(ROOT, 'admin', 'src', 'translations', 'en.json');
  const texts = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  return Object.values(texts).map((text) => ({ file: path.relative(ROOT, file), text }));
}

const messages = [...sourceFiles(path.join(ROOT, 'server', 'src')).flatMap(literalsOf), ...adminTexts()];

/** Whether `option` (dotted, e.g. `media.maxBytes`) is an option of the plugin config. */
function isConfigOption(option: string): boolean {
  let schema: z.core.$ZodType = pluginConfigSchema;
  for (const key of option.split('.')) {
    while (schema instanceof z.ZodOptional) schema = schema.unwrap();
    if (schema instanceof z.ZodObject) {
      const next = (schema.shape as Record<string, z.core.$ZodType>)[key];
      if (!next) return false;
      schema = next;
    } else if (schema instanceof z.ZodRecord) {
      const keys = schema.keyType;
      if (keys instanceof z.ZodEnum && !keys.options.includes(key)) return false;
      schema = schema.valueType;
    } else {
      return false;
    }
  }
  return true;
}

const topLevelOptions = Object.keys(pluginConfigSchema.shape);

/** Dotted names in messages that look like an option and are not one. */
const NOT_OPTIONS = new Set([
  // The media service's method, in an error for the plugin's own developers.
  'media.importImage',
]);
const mentionsPluginConfig = (text: string) => /config\/plugins|plugin config/.test(text);

/**
 * Options a message names: dotted paths under a top-level option, and, in a message about the
 * plugin config, quoted or bracketed names.
 */
function namedOptions(text: string): string[] {
  // Not inside a URL or a host name such as https://platform.example.com.
  const dotted = [...text.matchAll(/(?<![\w./-])([a-z][A-Za-z]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\b(?!\.\w)/g)]
    .map(([, option]) => option)
    .filter((option) => topLevelOptions.includes(option.split('.')[0]) && !NOT_OPTIONS.has(option));
  const quoted = mentionsPluginConfig(text)
    ? [...text.matchAll(/["(]([a-z][A-Za-z]*)[")]/g)].map(([, option]) => option)
    : [];
  return [...dotted, ...quoted];
}

/** Section titles and anchors of README.md, as GitHub makes them. */
function readmeSections(): { titles: string[]; anchors: string[] } {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const titles = [...readme.matchAll(/^#{1,6} +(.+?) *$/gm)].map(([, title]) => title);
  const anchors = titles.map((title) =>
    title
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-')
  );
  return { titles, anchors };
}

/** README sections a message names: `README.md#anchor`, `the README's "Title"`, `the "Title" section`. */
function namedReadmeSections(text: string): { anchors: string[]; titles: string[] } {
  if (!/README/.test(text)) return { anchors: [], titles: [] };
  return {
    anchors: [...text.matchAll(/README(?:\.md)?#([\w-]+)/g)].map(([, anchor]) => anchor),
    titles: [...text.matchAll(/README(?:\.md)?'s "([^"]+)"|"([^"]+)" sections?\b/g)].map(
      ([, afterReadme, beforeSection]) => afterReadme ?? beforeSection
    ),
  };
}

/** Variables a message says the example app reads: `NAME in the example`. */
function namedExampleVariables(text: string): string[] {
  if (!/in the example/.test(text)) return [];
  return [...text.matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)].map(([, name]) => name);
}

describe('messages that point the user somewhere', () => {
  test('the scan finds the messages it checks', () => {
    const pointing = messages.filter((message) => namedOptions(message.text).length > 0);
    expect(pointing.length).toBeGreaterThan(10);
    expect(messages.some((message) => namedExampleVariables(message.text).length > 0)).toBe(true);
  });

  test('every option a message names is an option of the plugin config', () => {
    const missing = messages.flatMap((message) =>
      namedOptions(message.text)
        .filter((option) => !isConfigOption(option))
        .map((option) => `${message.file}: "${option}" in ${JSON.stringify(message.text)}`)
    );
    expect(missing).toEqual([]);
  });

  test('every README section a message names exists', () => {
    const { titles, anchors } = readmeSections();
    const missing = messages.flatMap((message) => {
      const named = namedReadmeSections(message.text);
      return [
        ...named.anchors.filter((anchor) => !anchors.includes(anchor)),
        ...named.titles.filter((title) => !titles.includes(title)),
      ].map((section) => `${message.file}: "${section}" in ${JSON.stringify(message.text)}`);
    });
    expect(missing).toEqual([]);
  });

  test('every variable a message says the example reads is read by the example', () => {
    const exampleConfig = fs
      .readdirSync(path.join(ROOT, 'example', 'config'))
      .map((file) => fs.readFileSync(path.join(ROOT, 'example', 'config', file), 'utf8'))
      .join('\n');
    const missing = messages.flatMap((message) =>
      namedExampleVariables(message.text)
        .filter((name) => !exampleConfig.includes(`'${name}'`))
        .map((name) => `${message.file}: ${name} in ${JSON.stringify(message.text)}`)
    );
    expect(missing).toEqual([]);
  });
});
