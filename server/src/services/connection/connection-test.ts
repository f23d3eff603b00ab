import type { Core } from '@strapi/strapi';
import type { ConnectionTestResult } from '#contract/admin/connection-test';
import type { HandshakeResponse } from '../../contract/responses';
import { CAPABILITIES, type Capability } from '../../contract/capabilities';
import { signMessage } from '../../contract/signature';
import { isProbeAnswer, newNonce, PROBE_PATH } from '../../utils/connection-probe';
import { getService, pluginConfig } from '../../plugin';
import { shownLocation } from '../../utils/display-url';

/** Non-ASCII text in the probe makes a proxy that re-encodes bodies break the signature, as it would for real posts. */
const PROBE_BODY = JSON.stringify({ connection_test: true, probe: 'Grüße, 東京, €' });
/** Enough for any handshake or error this plugin sends; a longer answer is not read further. */
const MAX_ANSWER_BYTES = 16_384;
const MAX_ERROR_SHOWN = 1_000;

const NO_PUBLIC_URL =
  'Set the public URL of this Strapi first: in the Public URL field of this page (then save), or as Strapi’s server.url (PUBLIC_URL in the example). The test sends the connection key, so it only goes to an address set in the configuration, never to the address this page was opened at.';

const NOT_THIS_SITE = 'The Public URL does not lead back to this Strapi';

/**
 * "Test connection": the server signs a handshake exactly as the publisher does and sends it
 * to its own public base URL, so whatever sits in between (proxy, CDN, load balancer) is
 * tested too: stripped headers, rewritten bodies, redirects and wrong public URLs all show.
 *
 * The handshake carries the connection key, and the address comes from configuration that an
 * admin with settings.update may point anywhere, while an admin with settings.read may press the
 * button. So the key goes nowhere before the address proved it leads back to this site: first an
 * unsigned, keyless probe with a fresh nonce (utils/connection-probe), which only a server that
 * shares this site's store answers correctly; then, only if it did, the signed handshake. The admin sees the parsed
 * handshake or a message, never what another server answered. Never built from the admin's
 * request either: a forged Host or X-Forwarded-Host would choose the address.
 *
 * The public URL is not passed through the address guard (network/address-guard), unlike image
 * and platform URLs: a site may well reach its own public URL at a private address (behind a
 * proxy, in a container network), and the probe sends nothing secret and shows of a foreign
 * server's answer only its status and, for a redirect, the origin and path it points to.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = () => getService(strapi, 'settings');
  const timeoutMs = () => pluginConfig(strapi).connectionTest.timeoutMs;

  /** Undefined when the address answered as this site; otherwise why the key was not sent. */
  async function probeFails(baseUrl: string): Promise<string | undefined> {
    const nonce = newNonce();
    const url = `${baseUrl}${PROBE_PATH}/${nonce}`;
    let answer: Response;
    try {
      answer = await fetch(url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs()),
        headers: { 'User-Agent': USER_AGENT },
      });
    } catch (error) {
      return `${NOT_THIS_SITE}: ${unreachable(baseUrl, error, timeoutMs())} Nothing was signed and the key was not sent.`;
    }
    if (answer.status >= 300 && answer.status < 400) {
      await answer.body?.cancel();
      return `${NOT_THIS_SITE}: ${redirectAdvice(baseUrl, answer)} The key was not sent.`;
    }
    const body = parseJson(await readBounded(answer)) as { probe?: unknown } | undefined;
    if (answer.status === 200 && isProbeAnswer(await settings().probeSecret(), nonce, body?.probe))
      return undefined;
    return `${NOT_THIS_SITE}: ${baseUrl} answered HTTP ${answer.status} to the connection probe without this site's proof (only this Strapi, or an instance of it on the same database, can give it), so the test sent nothing else and the key was not sent. Set the Public URL field of this page (or Strapi's server.url) to the address at which the publisher reaches this Strapi, and check that a proxy in front of it passes ${PROBE_PATH}/… through to Strapi.`;
  }

  return {
    async run(): Promise<ConnectionTestResult> {
      const baseUrl = await settings().configuredBaseUrl();
      if (!baseUrl) return { ok: false, message: NO_PUBLIC_URL };
      const [key] = (await settings().acceptedKeys()) as string[];
      if (!key) {
        return {
          ok: false,
          message:
            'There is no connection key yet. Paste the key from the publisher and save, then test again.',
        };
      }
      const refused = await probeFails(baseUrl.url);
      if (refused) return { ok: false, message: refused };

      const url = `${baseUrl.url}/handshake`;
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
            'User-Agent': USER_AGENT,
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
      const text = await readBounded(answer);
      return { url, status: answer.status, durationMs, ...verdict(answer, parseJson(text), url) };
    },
  };
};

const USER_AGENT = 'strapi-plugin-publish-bridge (connection test)';

/** At most MAX_ANSWER_BYTES of the answer: another server decides how much it sends. */
async function readBounded(answer: Response): Promise<string> {
  const reader = answer.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    return '';
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

function verdict(
  answer: Response,
  response: unknown,
  url: string
): Pick<ConnectionTestResult, 'ok' | 'message' | 'handshake'> {
  const body = (typeof response === 'object' && response !== null ? response : {}) as Partial<
    Record<keyof HandshakeResponse | 'error', unknown>
  >;
  if (answer.status >= 300 && answer.status < 400) {
    return {
      ok: false,
      message: redirectAdvice(url, answer),
    };
  }
  if (answer.status === 200 && body.ok === true && Array.isArray(body.capabilities)) {
    const site = (typeof body.site === 'object' && body.site !== null ? body.site : {}) as Record<
      string,
      unknown
    >;
    return {
      ok: true,
      message: `The signed handshake went through ${url} and came back intact: headers, body and signature survived every proxy on the way.`,
      handshake: {
        contract: String(body.contract),
        version: String(body.version),
        site: { name: String(site.name ?? ''), url: String(site.url ?? '') },
        capabilities: body.capabilities.filter((name): name is Capability => CAPABILITIES.includes(name)),
      },
    };
  }
  if (response === undefined) {
    return {
      ok: false,
      message: `Something other than this plugin answered at ${url} (HTTP ${answer.status}, not JSON). Check the base URL and any proxy or CDN rules for this path.`,
    };
  }
  const error = typeof body.error === 'string' ? body.error.slice(0, MAX_ERROR_SHOWN) : undefined;
  if (answer.status === 401 && error !== undefined) {
    return { ok: false, message: `The request reached the plugin but was refused: ${error}` };
  }
  return {
    ok: false,
    message:
      error !== undefined
        ? `The handshake failed with HTTP ${answer.status}: ${error}`
        : `The handshake answered HTTP ${answer.status} without the expected body. Something between the publisher and Strapi may be answering for this path.`,
  };
}

/** Where a redirect points, and what to set instead: the probe and the handshake say the same. */
const redirectAdvice = (url: string, answer: Response) =>
  `${url} redirects to ${shownLocation(answer.headers.get('location'), url)}. The publisher does not follow redirects with a body: set the final address in the Public URL field of this page (or Strapi's server.url: PUBLIC_URL in the example).`;

function unreachable(url: string, error: unknown, timeoutMs: number): string {
  const name = (error as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return `No answer from ${url} within ${Math.round(timeoutMs / 1000)} s. Check that this address reaches this Strapi server from the server itself.`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return `Could not reach ${url} (${cause?.code ?? cause?.message ?? (error as Error)?.message}). Check the public URL of Strapi (the Public URL field, or server.url) and that this server can resolve and reach it.`;
}

/** The parsed JSON, or undefined when the answer is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
