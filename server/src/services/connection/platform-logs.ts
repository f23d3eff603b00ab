import type { Core } from '@strapi/strapi';
import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { PluginConfig } from '../../config';
import { parseAllowList } from '../../network/address-guard';
import {
  AddressRefused,
  HostUnresolved,
  pinnedLookup,
  resolveCheckedAddresses,
} from '../../network/checked-connection';
import type { DeliveryLogEntry } from '#contract/admin/platform-logs';
import { getService, pluginConfig } from '../../plugin';
import { shownLocation } from '../../utils/display-url';

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
 * Like an image import, it connects only to checked addresses: private, loopback and
 * link-local ones only when platform.allowedHosts lists them.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const platformConfig = () => pluginConfig(strapi).platform;

  return {
    async list(): Promise<DeliveryLogEntry[]> {
      const { url, apiKey } = await getService(strapi, 'settings').platform();
      if (!url || !apiKey) {
        throw new PlatformLogsError(
          400,
          'Set the platform URL and the key its log endpoint accepts (Settings > Publish Bridge, Platform delivery log), then load the log again.'
        );
      }
      const endpoint = new URL(`${url.replace(/\/+$/, '')}${PLATFORM_LOGS_PATH}`);
      const text = await fetchText(endpoint, apiKey, platformConfig());
      const entries = parseEntries(text, endpoint);
      const found = await getService(strapi, 'activity').locate(
        entries.map((entry) => entry.external_id).filter(Boolean)
      );
      return entries.map((entry) => {
        const location = found.get(entry.external_id);
        return location ? { ...entry, entry: location } : entry;
      });
    },
  };
};

/** Why the log could not be read, phrased for the admin; `signal` tells a timeout from other failures. */
function readFailure(
  error: unknown,
  endpoint: URL,
  timeoutMs: number,
  signal: AbortSignal
): PlatformLogsError {
  if (error instanceof PlatformLogsError) return error;
  if (signal.aborted) {
    return new PlatformLogsError(
      504,
      `The platform did not answer within ${Math.round(timeoutMs / 1000)} s (${endpoint.href}). Try again later, or check the platform URL.`
    );
  }
  if (error instanceof AddressRefused) {
    return new PlatformLogsError(
      400,
      `The platform URL is refused: ${error.message}. The log key is only sent to public addresses; if the platform really is on your private network, list its host in platform.allowedHosts of the plugin config (PUBLISH_BRIDGE_PLATFORM_ALLOWED_HOSTS in the example) and restart Strapi.`
    );
  }
  const reason =
    error instanceof HostUnresolved
      ? error.message
      : ((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message);
  return new PlatformLogsError(
    502,
    `Could not reach the platform at ${endpoint.href} (${reason}). Check the platform URL.`
  );
}

/** One GET on a fresh socket to the checked addresses only (no pooled socket from another config). */
function get(endpoint: URL, addresses: LookupAddress[], apiKey: string, signal: AbortSignal) {
  const client = endpoint.protocol === 'https:' ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    client
      .get(
        endpoint,
        {
          agent: false,
          lookup: pinnedLookup(addresses),
          signal,
          headers: { 'x-api-key': apiKey, accept: 'application/json' },
        },
        resolve
      )
      .on('error', reject);
  });
}

async function fetchText(endpoint: URL, apiKey: string, platform: PluginConfig['platform']) {
  const signal = AbortSignal.timeout(platform.timeoutMs);
  let answer: IncomingMessage | undefined;
  try {
    const addresses = await resolveCheckedAddresses(endpoint, parseAllowList(platform.allowedHosts), signal);
    answer = await get(endpoint, addresses, apiKey, signal);
    return await answerText(answer, endpoint);
  } catch (error) {
    throw readFailure(error, endpoint, platform.timeoutMs, signal);
  } finally {
    answer?.destroy();
  }
}

/**
 * The body of a successful answer. Redirects are not followed, not even within the platform's
 * origin: the platform URL is set by hand, so a redirect means it is not the final address, and
 * saying so beats sending the key on to wherever a Location header points.
 */
async function answerText(answer: IncomingMessage, endpoint: URL): Promise<string> {
  const status = answer.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    throw new PlatformLogsError(
      502,
      `The platform answered with a redirect (HTTP ${status}) to ${shownLocation(answer.headers.location, endpoint)}. The log key is not sent on to another address: set the platform URL to the final address.`
    );
  }
  if (status === 401 || status === 403) {
    throw new PlatformLogsError(
      502,
      `The platform refused the log key (HTTP ${status}). Copy the key its log endpoint accepts into Settings > Publish Bridge again.`
    );
  }
  const text = await readLimited(answer, endpoint);
  if (status < 200 || status >= 300) {
    const detail = errorDetail(text);
    throw new PlatformLogsError(
      502,
      `The platform answered HTTP ${status}${detail ? `: ${detail}` : ''}. Check the platform URL, or try again later.`
    );
  }
  return text;
}

async function readLimited(answer: IncomingMessage, endpoint: URL): Promise<string> {
  if (Number(answer.headers['content-length'] ?? 0) > MAX_ANSWER_BYTES) throw tooLarge(endpoint);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw tooLarge(endpoint);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = (endpoint: URL) =>
  new PlatformLogsError(
    502,
    `The platform's log answer from ${endpoint.href} is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB; it was not read.`
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
function parseEntries(text: string, endpoint: URL): DeliveryLogEntry[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new PlatformLogsError(
      502,
      `The platform's answer from ${endpoint.href} is not valid JSON, so the delivery log cannot be shown. Check the platform URL: it may point at a web page instead of the platform.`
    );
  }
  const data = Array.isArray(body) ? body : (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    throw new PlatformLogsError(
      502,
      `The platform's answer from ${endpoint.href} has no "data" list of deliveries, so it cannot be shown. Check the platform URL.`
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
