import type { Core } from '@strapi/strapi';
import type { PluginConfig } from '../config';
import { signMessage } from '../contract/signature';
import { PLUGIN_ID } from '../constants';

export type ConnectionTestResult = {
  ok: boolean;
  /** The handshake URL the server called: the configured base URL plus `/handshake`; none when unset. */
  url?: string;
  /** What the user should know or do next, in one sentence or two. */
  message: string;
  status?: number;
  durationMs?: number;
  /** What came back: the parsed JSON, or the start of a non-JSON answer. */
  response?: unknown;
};

/** Non-ASCII text in the probe makes a proxy that re-encodes bodies break the signature, as it would for real posts. */
const PROBE_BODY = JSON.stringify({ connection_test: true, probe: 'Grüße, 東京, €' });
const MAX_ANSWER_SHOWN = 2_000;

const NO_PUBLIC_URL =
  'Set the public URL of this Strapi first: in the Public URL field of this page (then save), or as Strapi’s server.url (PUBLIC_URL in the example). The test sends the connection key, so it only goes to an address set in the configuration, never to the address this page was opened at.';

/**
 * "Test connection": the server signs a handshake exactly as the publisher does and sends it
 * to its own public base URL, so whatever sits in between (proxy, CDN, load balancer) is
 * tested too: stripped headers, rewritten bodies, redirects and wrong public URLs all show.
 *
 * The request carries the connection key, so its address comes only from configuration an
 * operator (server.url) or an admin with settings.update (the public URL field) set. Built from
 * the admin's request, a forged Host or X-Forwarded-Host would send the key to any server.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = () => strapi.plugin(PLUGIN_ID).service('settings');
  const timeoutMs = () =>
    (strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig).connectionTest.timeoutMs;

  return {
    async run(): Promise<ConnectionTestResult> {
      const baseUrl = await settings().configuredBaseUrl();
      if (!baseUrl) return { ok: false, message: NO_PUBLIC_URL };
      const url = `${baseUrl.url}/handshake`;
      const [key] = (await settings().acceptedKeys()) as string[];
      if (!key) {
        return {
          ok: false,
          url,
          message:
            'There is no connection key yet. Paste the key from the publisher and save, then test again.',
        };
      }

      const timestamp = String(Date.now());
      const startedAt = Date.now();
      let answer: Response;
      try {
        answer = await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs()),
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': 'strapi-plugin-publish-bridge (connection test)',
            'X-API-Key': key,
            'X-Publisher-Timestamp': timestamp,
            'X-Publisher-Signature': signMessage(key, timestamp, PROBE_BODY),
          },
          body: PROBE_BODY,
        });
      } catch (error) {
        return { ok: false, url, message: unreachable(url, error, timeoutMs()) };
      }
      const durationMs = Date.now() - startedAt;
      const text = await answer.text().catch(() => '');
      const response = parseJson(text);
      const result = { url, status: answer.status, durationMs, response };
      return { ...result, ...verdict(answer, response, url) };
    },
  };
};

function verdict(answer: Response, response: unknown, url: string): { ok: boolean; message: string } {
  const body = (typeof response === 'object' && response !== null ? response : {}) as {
    ok?: unknown;
    capabilities?: unknown;
    error?: unknown;
  };
  if (answer.status >= 300 && answer.status < 400) {
    return {
      ok: false,
      message: `${url} redirects to ${answer.headers.get('location') ?? 'another address'}. The publisher does not follow redirects with a body: register the final address instead (the Public URL field of this page, or Strapi's server.url: PUBLIC_URL in the example).`,
    };
  }
  if (answer.status === 200 && body.ok === true && Array.isArray(body.capabilities)) {
    return {
      ok: true,
      message: `The signed handshake went through ${url} and came back intact: headers, body and signature survived every proxy on the way.`,
    };
  }
  if (typeof response === 'string') {
    return {
      ok: false,
      message: `Something other than this plugin answered at ${url} (HTTP ${answer.status}, not JSON). Check the base URL and any proxy or CDN rules for this path.`,
    };
  }
  if (answer.status === 401 && typeof body.error === 'string') {
    return {
      ok: false,
      message: `The request reached the plugin but was refused: ${body.error}`,
    };
  }
  return {
    ok: false,
    message:
      typeof body.error === 'string'
        ? `The handshake failed with HTTP ${answer.status}: ${body.error}`
        : `The handshake answered HTTP ${answer.status} without the expected body. Something between the publisher and Strapi may be answering for this path.`,
  };
}

function unreachable(url: string, error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return `No answer from ${url} within ${Math.round(timeoutMs / 1000)} s. Check that this address reaches this Strapi server from the server itself.`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return `Could not reach ${url} (${cause?.code ?? cause?.message ?? (error as Error)?.message}). Check the public URL of Strapi (the Public URL field, or server.url) and that this server can resolve and reach it.`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.length > MAX_ANSWER_SHOWN ? `${text.slice(0, MAX_ANSWER_SHOWN)}…` : text;
  }
}
