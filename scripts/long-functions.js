#!/usr/bin/env node
/**
 * `npm run check:long-functions`: the functions in server/src and admin/src longer than 50 lines
 * with no reason written beside them, one `lines  file:line  name` row each; exit 1 when any.
 *
 * A reason is a comment right above the function, or above the statement that holds it, that
 * starts `Over 50 lines:` and says why (a closure whose short steps share state, a component's JSX).
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.resolve(__dirname, '..');
const FOLDERS = ['server/src', 'admin/src'];
const MAX_LINES = 50;
const REASON = /Over 50 lines:/;

/**
 * @param {string} folder
 * @returns {string[]}
 */
function sourceFiles(folder) {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/**
 * @param {ts.Node} node
 * @returns {node is ts.FunctionLikeDeclaration}
 */
const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node);

/**
 * The statement or member a function stands in, where its reason is written (`const X = () => …`).
 * @param {ts.Node} node
 */
function holderOf(node) {
  let holder = node;
  while (
    holder.parent &&
    !ts.isSourceFile(holder.parent) &&
    !ts.isBlock(holder.parent) &&
    !ts.isObjectLiteralExpression(holder.parent) &&
    !ts.isClassLike(holder.parent)
  ) {
    holder = holder.parent;
  }
  return holder;
}

/**
 * @param {ts.SourceFile} source
 * @param {ts.Node} node
 */
function hasReason(source, node) {
  const comments = ts.getLeadingCommentRanges(source.text, holderOf(node).getFullStart()) ?? [];
  return comments.some(({ pos, end }) => REASON.test(source.text.slice(pos, end)));
}

/** @param {ts.FunctionLikeDeclaration} node */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const holder = holderOf(node);
  return ts.isVariableStatement(holder)
    ? holder.declarationList.declarations[0].name.getText()
    : ts.isExportAssignment(holder)
      ? 'export default'
      : '(anonymous)';
}

/** @param {string} file */
function unexplainedLongFunctions(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (/** @type {number} */ position) => source.getLineAndCharacterOfPosition(position).line + 1;
  /** @type {{ lines: number; where: string; name: string }[]} */
  const found = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (isFunction(node)) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.end) - first + 1;
      if (lines > MAX_LINES && !hasReason(source, node)) {
        found.push({ lines, where: `${path.relative(ROOT, file)}:${first}`, name: nameOf(node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const found = FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder))).flatMap(
  unexplainedLongFunctions
);
for (const { lines, where, name } of found) console.log(`${lines}\t${where}\t${name}`);
console.log(
  found.length === 0
    ? `No function over ${MAX_LINES} lines without a reason beside it.`
    : `${found.length} functions over ${MAX_LINES} lines without a reason beside them (a comment starting "Over 50 lines:").`
);
process.exitCode = found.length === 0 ? 0 : 1;
