/**
 * HTML written into Markdown, which Markdown renderers pass through as HTML. A renderer ends an
 * HTML block at a blank line and reads what follows as Markdown, where it passes tags through but
 * escapes a stray quote: a blank line inside an attribute value (`<td title="a⏎⏎b">`) ended the
 * attribute at the next tag's quote, and that tag's inert attribute text became live attributes
 * of the cell (`onfocus=alert(1)`, found by the fourth attack review). This module has no
 * Turndown in it: the server's main thread writes HTML into Markdown too.
 */

/**
 * `html` without blank lines: the line break that ends each blank line is written as `&#10;`,
 * which HTML reads back as the same break, in text and in attribute values alike.
 */
export const withoutBlankLines = (html: string) =>
  html.replace(/\r\n?/g, '\n').replace(/^([ \t]*)\n/gm, '$1&#10;');

/**
 * HTML kept as it was sent, as one HTML block: the `<div>` starts a block whatever the HTML
 * starts with, so none of it is read as Markdown (text such as `![x](…)` would become an image).
 */
export const verbatimHtmlBlock = (html: string) => `<div>\n${withoutBlankLines(html)}\n</div>`;
