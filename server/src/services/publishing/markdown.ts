import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { verbatimHtmlBlock } from '../../mapping/html-in-markdown';
import type { MarkdownResult } from '../../mapping/html-to-markdown';
import type { MarkdownTask } from '../../mapping/markdown-worker';
import { timeBoxedWorker, type TimeBudget, type WorkerFailure } from '../../utils/time-boxed-worker';
import { pluginConfig } from '../../plugin';

/** The worker's own bundle, built beside the server's (dist/server → dist/markdown-worker). */
const WORKER_SCRIPT = path.join(__dirname, '..', 'markdown-worker', 'index.js');
/** Turndown keeps a tree of the HTML it converts; a few thousand blocks need a few tens of MB. */
const WORKER_HEAP_MB = 256;

export type MarkdownConversion = MarkdownResult & {
  /** Set when the conversion gave no answer, and the HTML was kept as it is. */
  keptAsHtml?: WorkerFailure;
};

/**
 * HTML to Markdown, off the event loop: each request's conversions get `content.markdownTimeoutMs`
 * of the worker's time between them, and wait at most twice that for other requests' (one
 * request that uses all of its time ahead of them never makes them fail). What does not convert
 * is kept as HTML, which Markdown renderers pass through.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const timeoutMs = () => pluginConfig(strapi).content.markdownTimeoutMs;
  const worker = timeBoxedWorker<MarkdownTask, MarkdownResult>({
    filename: WORKER_SCRIPT,
    timeoutMs,
    maxWaitMs: () => 2 * timeoutMs(),
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });

  return {
    /** The worker time one request's conversions share. */
    requestBudget: (): TimeBudget => ({ remainingMs: timeoutMs() }),

    async convert(html: string, maxBlocks: number, budget: TimeBudget): Promise<MarkdownConversion> {
      const outcome = await worker.run({ html, maxBlocks }, budget);
      return outcome.ok ? outcome.value : { markdown: verbatimHtmlBlock(html), keptAsHtml: outcome.failure };
    },

    stop: () => worker.stop(),
  };
};
