import type { LookupAddress } from 'node:dns';
import { lookup as resolveHost } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { createWeightedSemaphore } from '../utils/weighted-semaphore';
import { checkAddress, normaliseHost, type AddressKind, type AllowList } from './address-guard';

/**
 * Outgoing connections to addresses someone else chose (a publisher's image URL, the platform
 * URL): every address a host resolves to is checked against the address guard, and the socket
 * is then handed only those checked addresses.
 */

/** Why a host may not be connected to; the caller phrases it for its own setting. */
export class AddressRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly kind: Exclude<AddressKind, 'public'>,
    /** True when the URL named the address itself rather than a host that resolved to it. */
    readonly literal: boolean
  ) {
    super(
      literal ? `${host} is a ${kind} address` : `${host} resolves to ${address}, which is a ${kind} address`
    );
    this.name = 'AddressRefused';
  }
}

/** The host could not be resolved at all; `code` is the resolver's (ENOTFOUND, EAI_AGAIN...). */
export class HostUnresolved extends Error {
  constructor(
    readonly host: string,
    readonly code: string | undefined
  ) {
    super(`the host ${host} could not be resolved (${code})`);
    this.name = 'HostUnresolved';
  }
}

/**
 * Guard lookups that may be in getaddrinfo at once, process-wide. dns.lookup runs on libuv's
 * threadpool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which the database driver's
 * host lookups, file reads and crypto share, and a lookup cannot be cancelled: abandoned at the
 * time limit it holds its thread until the resolver gives up (10 s per name with the usual
 * resolv.conf). Without a cap a post of 4 images on names whose DNS never answers took every
 * thread. A slot is freed only when getaddrinfo returns, so at most this many threads are ever
 * held; a lookup still waiting for a slot at its time limit fails like any other timeout.
 * dns.promises.Resolver could cancel, but it asks DNS servers only: it would stop reading
 * /etc/hosts (localhost, names site owners allow-list for local image servers).
 */
const LOOKUPS_AT_ONCE = 2;
const lookupSlots = createWeightedSemaphore(() => LOOKUPS_AT_ONCE);

export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The addresses `url`'s host resolves to, every one checked; throws AddressRefused or HostUnresolved. */
export async function resolveCheckedAddresses(
  url: URL,
  allowList: AllowList,
  signal: AbortSignal
): Promise<LookupAddress[]> {
  const host = normaliseHost(url.hostname);
  const literal = isIP(host);
  let addresses: LookupAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal }];
  } else {
    try {
      addresses = await untilAborted(
        lookupSlots.run(1, () => resolveHost(host, { all: true, verbatim: true }), signal),
        signal
      );
    } catch (error) {
      if (signal.aborted) throw error;
      throw new HostUnresolved(host, (error as NodeJS.ErrnoException).code);
    }
  }
  for (const { address } of addresses) {
    const verdict = checkAddress(host, address, allowList);
    if (!verdict.allowed) throw new AddressRefused(host, address, verdict.kind, literal !== 0);
  }
  return addresses;
}

/**
 * Hands the socket only addresses that were checked, so a DNS answer that changes between the
 * check and the connection (DNS rebinding) cannot send it elsewhere.
 */
export const pinnedLookup =
  (addresses: LookupAddress[]): LookupFunction =>
  (hostname, options, callback) => {
    const usable = options.family ? addresses.filter(({ family }) => family === options.family) : addresses;
    if (usable.length === 0) {
      callback(
        Object.assign(new Error(`no checked IPv${options.family} address for ${hostname}`), {
          code: 'ENOTFOUND',
        }),
        ''
      );
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
