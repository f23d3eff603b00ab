import type { Core } from '@strapi/strapi';
import type { PluginConfig } from '../config';
import { PLUGIN_ID } from '../constants';
import type { EntryLocation } from './activity';

/** One delivery as the platform reports it (contract section 2.10), with its Strapi entry when it exists. */
export type DeliveryLogEntry = {
  log_id: string;
  action: string;
  status: string;
  external_id: string;
  create_at: string;
  request_payload: string;
  response_payload: string;
  entry?: EntryLocation;
};

/** A problem with the platform's answer, phrased for the admin; `status` is what the admin API answers. */
export class PlatformLogsError extends Error {
  constructor(
    readonly status: 400 | 502 | 504,
    message: string
  ) {
    super(message);
    this.name = 'PlatformLogsError';
  }
}

export const PLATFORM_LOGS_PATH = '/back/integrations/platform/logs';
const MAX_ANSWER_BYTES = 20 * 1024 * 1024;
const ENTRY_FIELDS = [
  'log_id',
  'action',
  'status',
  'external_id',
  'create_at',
  'request_payload',
  'response_payload',
] as const;

/**
 * Reads the platform's delivery log. The call is made by the server, never the browser, so
 * the platform key stays on the server and the platform needs no CORS rules for the admin.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const timeoutMs = () => (strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig).platform.timeoutMs;

  return {
    async list(): Promise<DeliveryLogEntry[]> {
      const { url, apiKey } = await plugin().service('settings').platform();
      if (!url || !apiKey) {
        throw new PlatformLogsError(
          400,
          'Set the platform URL and the key its log endpoint accepts (Settings > Publish Bridge, Platform delivery log), then load the log again.'
        );
      }
      const endpoint = `${url.replace(/\/+$/, '')}${PLATFORM_LOGS_PATH}`;
      const text = await fetchText(endpoint, apiKey, timeoutMs());
      const entries = parseEntries(text, endpoint);
      const found = await plugin()
        .service('activity')
        .locate(entries.map((entry) => entry.external_id).filter(Boolean));
      return entries.map((entry) => {
        const location = found.get(entry.external_id);
        return location ? { ...entry, entry: location } : entry;
      });
    },
  };
};

async function fetchText(endpoint: string, apiKey: string, timeoutMs: number): Promise<string> {
  let answer: Response;
  try {
    answer = await fetch(endpoint, {
      headers: { 'x-api-key': apiKey, Accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new PlatformLogsError(
        504,
        `The platform did not answer within ${Math.round(timeoutMs / 1000)} s (${endpoint}). Try again later, or check the platform URL.`
      );
    }
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
    throw new PlatformLogsError(
      502,
      `Could not reach the platform at ${endpoint} (${cause?.code ?? cause?.message ?? (error as Error)?.message}). Check the platform URL.`
    );
  }
  if (answer.status === 401 || answer.status === 403) {
    await answer.body?.cancel();
    throw new PlatformLogsError(
      502,
      `The platform refused the log key (HTTP ${answer.status}). Copy the key its log endpoint accepts into Settings > Publish Bridge again.`
    );
  }
  const text = await readLimited(answer, endpoint);
  if (answer.status < 200 || answer.status >= 300) {
    const detail = errorDetail(text);
    throw new PlatformLogsError(
      502,
      `The platform answered HTTP ${answer.status}${detail ? `: ${detail}` : ''}. Check the platform URL, or try again later.`
    );
  }
  return text;
}

async function readLimited(answer: Response, endpoint: string): Promise<string> {
  const declared = Number(answer.headers.get('content-length') ?? 0);
  if (declared > MAX_ANSWER_BYTES) {
    await answer.body?.cancel();
    throw tooLarge(endpoint);
  }
  if (!answer.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw tooLarge(endpoint);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (endpoint: string) =>
  new PlatformLogsError(
    502,
    `The platform's log answer from ${endpoint} is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; it was not read.`
  );

function errorDetail(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const detail = typeof body.error === 'string' ? body.error : body.message;
    return typeof detail === 'string' ? detail.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

/** The contract's `{ status, data: [...] }`; a bare array is accepted too. Values are shown as text. */
function parseEntries(text: string, endpoint: string): DeliveryLogEntry[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PlatformLogsError(
      502,
      `The platform's answer from ${endpoint} is not valid JSON, so the delivery log cannot be shown. Check the platform URL: it may point at a web page instead of the platform.`
    );
  }
  const data = Array.isArray(body) ? body : (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    throw new PlatformLogsError(
      502,
      `The platform's answer from ${endpoint} has no "data" list of deliveries, so it cannot be shown. Check the platform URL.`
    );
  }
  return data
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => {
      const entry = {} as Record<(typeof ENTRY_FIELDS)[number], string>;
      for (const field of ENTRY_FIELDS) entry[field] = asText(item[field]);
      return entry;
    });
}

const asText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
