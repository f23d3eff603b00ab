import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown } from './html-to-markdown';

/** What the Markdown service sends its worker: one HTML value and the site's block limit. */
export type MarkdownTask = { html: string; maxBlocks: number };

/**
 * The worker thread's script, built as a bundle of its own (see package.json's exports): Turndown
 * has regular expressions that take quadratic time on some whitespace (96 KB took 15 s), which
 * would stall every request of the site if run on its event loop.
 */
parentPort?.on('message', ({ html, maxBlocks }: MarkdownTask) => {
  parentPort!.postMessage(htmlToMarkdown(html, { maxBlocks }));
});
