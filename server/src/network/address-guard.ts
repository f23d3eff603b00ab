import ipaddr from 'ipaddr.js';
import { BlockList, isIP } from 'node:net';

/**
 * Decides whether the server may open a connection to an address a publisher's image URL
 * resolves to. Without this a post could make the server fetch its own admin port, a cloud
 * metadata endpoint (169.254.169.254) or anything else on the private network (SSRF).
 */

export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved';

type SpecialKind = Exclude<AddressKind, 'public'>;

/**
 * The kind of each range ipaddr.js names from IANA's special-purpose registries. A range it names
 * that is not listed (reserved, discard, Teredo, ORCHID, AS112, AMT, segment routing, and any a
 * later version adds) is 'reserved': refused, never allowed by default.
 */
const KIND_OF_RANGE: Record<string, AddressKind> = {
  unicast: 'public',
  unspecified: 'unspecified',
  loopback: 'loopback',
  private: 'private',
  // Deprecated site-local addresses reach only the local network, as private ones do.
  deprecatedSiteLocal: 'private',
  carrierGradeNat: 'carrier-grade NAT',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  benchmarking: 'benchmarking',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

const rangeList = (ranges: Partial<Record<SpecialKind, string[]>>) =>
  Object.fromEntries(
    Object.entries(ranges).map(([kind, cidrs]) => [kind, cidrs.map((cidr) => ipaddr.parseCIDR(cidr))])
  );

/** Ranges inside ones ipaddr.js names more broadly, told apart so that a refusal says what they are. */
const NARROWER_RANGES = rangeList({
  // ipaddr.js: 'reserved'.
  documentation: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'],
  benchmarking: ['198.18.0.0/15'],
  // ipaddr.js: 'rfc6052' with the well-known NAT64 prefix; local-use NAT64 reaches only the local network.
  private: ['64:ff9b:1::/48'],
});

/** IPv6 addresses outside global unicast are unassigned, whatever range ipaddr.js gives them. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 address an IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) or 6to4 (2002::/16)
 * address carries: the socket or a gateway connects to it, so each is what that address is.
 */
function carriedIPv4({ parts }: ipaddr.IPv6, range: string): ipaddr.IPv4 | undefined {
  if (range === 'ipv4Mapped' || range === 'rfc6052') return ipv4Of(parts[6], parts[7]);
  if (range === '6to4') return ipv4Of(parts[1], parts[2]);
  return undefined;
}

function kindOf(address: ipaddr.IPv4 | ipaddr.IPv6): AddressKind {
  const narrower = ipaddr.subnetMatch(address, NARROWER_RANGES, 'none');
  if (narrower !== 'none') return narrower as SpecialKind;
  const range = address.range();
  if (address instanceof ipaddr.IPv6) {
    const carried = carriedIPv4(address, range);
    if (carried) return kindOf(carried);
    if (range === 'unicast' && !address.match(GLOBAL_UNICAST)) return 'reserved';
  }
  return KIND_OF_RANGE[range] ?? 'reserved';
}

const familyOf = (address: string) => {
  const version = isIP(address);
  if (version === 0) throw new TypeError(`"${address}" is not an IP address`);
  return version === 4 ? 'ipv4' : 'ipv6';
};

/**
 * An IPv6 literal as the socket reads it, in hexadecimal: ipaddr.js reads `::a.b.c.d` as
 * IPv4-mapped (::ffff:a.b.c.d), a socket as IPv4-compatible (deprecated, refused), and the URL
 * parser writes what the socket reads. A zone (%eth0) names the interface, not the address.
 */
const socketIPv6 = (address: string) => new URL(`http://[${address.split('%')[0]}]`).hostname.slice(1, -1);

/** What kind of address `address` (an IPv4 or IPv6 literal, without brackets) is. */
export function classifyAddress(address: string): AddressKind {
  // Node's own check first: ipaddr.js also reads forms a socket never gets (octal, hex, short IPv4).
  const literal = familyOf(address) === 'ipv6' ? socketIPv6(address) : address;
  return kindOf(ipaddr.parse(literal));
}

/** Host names and addresses the site owner trusts although they are not public. */
export type AllowList = { hosts: ReadonlySet<string>; addresses: BlockList };

/** A URL's host as the allow-list compares it: lower case, no IPv6 brackets, no trailing dot. */
export function normaliseHost(host: string): string {
  const lower = host.trim().toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

type AllowListEntry =
  | { type: 'host'; host: string }
  | { type: 'address'; address: string }
  | { type: 'subnet'; network: string; prefix: number };

const EXPECTED = 'a host name, an IP address or a CIDR range such as "10.0.0.0/8"';

/** The entry, or why it cannot be used: each message says what to write instead. */
function parseEntry(raw: string): AllowListEntry | { problem: string } {
  const entry = normaliseHost(raw);
  // A zone names the interface, not the address: BlockList ignores it, so the entry would not mean what it says.
  if (entry.includes('%')) return { problem: `"${raw}" has a zone id (%...); write the address without it` };
  // The allow-list compares whole host names; a pattern would silently never match.
  if (entry.includes('*'))
    return { problem: `"${raw}" is a wildcard, which is not supported; list each host name` };
  const slash = entry.lastIndexOf('/');
  if (slash !== -1) return parseSubnet(raw, entry.slice(0, slash), entry.slice(slash + 1));
  if (isIP(entry)) return { type: 'address', address: entry };
  try {
    // A bare host name survives URL parsing unchanged; ports, paths and credentials do not.
    if (entry !== '' && normaliseHost(new URL(`http://${entry}`).hostname) === entry)
      return { type: 'host', host: entry };
  } catch {
    // Not a host either: answered below.
  }
  return { problem: `"${raw}" is not ${EXPECTED}` };
}

function parseSubnet(raw: string, network: string, prefixText: string): AllowListEntry | { problem: string } {
  const version = isIP(network);
  if (version === 0) return { problem: `"${raw}" is not ${EXPECTED}: "${network}" is not an IP address` };
  const maxPrefix = version === 4 ? 32 : 128;
  // Decimal digits only: Number() reads '' and '.' as 0, '0x8' as 8 and '-0' as -0 (which aborts BlockList).
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) {
    return {
      problem: `"${raw}" is not ${EXPECTED}: the prefix length must be a number from 1 to ${maxPrefix}`,
    };
  }
  const prefix = Number(prefixText);
  // /0 is every address, private and public alike: it would switch the guard off.
  if (prefix === 0)
    return { problem: `"${raw}" allows every address; list the private ranges the site needs instead` };
  const cidr = `${network}/${prefix}`;
  const start = (version === 4 ? ipaddr.IPv4 : ipaddr.IPv6).networkAddressFromCIDR(cidr).toString();
  // 10.0.0.1/8 may mean 10.0.0.0/8 or the one address 10.0.0.1: which one is the site owner's to say.
  if (start !== ipaddr.parse(network).toString()) {
    return {
      problem: `"${raw}" has host bits set: write the range as "${start}/${prefix}" or the address alone`,
    };
  }
  return { type: 'subnet', network, prefix };
}

/** Why an allow-list entry cannot be used, or undefined when it is a host name, an IP address or a CIDR range. */
export function allowListEntryProblem(entry: string): string | undefined {
  try {
    // The whole parse, BlockList included, so that whatever it refuses stops the boot, not a download.
    parseAllowList([entry]);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const addresses = new BlockList();
  for (const raw of entries) {
    const entry = parseEntry(raw);
    if ('problem' in entry) throw new TypeError(entry.problem);
    if (entry.type === 'host') hosts.add(entry.host);
    else if (entry.type === 'address') addresses.addAddress(entry.address, familyOf(entry.address));
    else addresses.addSubnet(entry.network, entry.prefix, familyOf(entry.network));
  }
  return { hosts, addresses };
}

export type AddressVerdict = { allowed: true; kind: AddressKind } | { allowed: false; kind: SpecialKind };

/**
 * Whether the server may connect to `address`, which `host` (the URL's host) resolved to.
 * Public addresses always may; others only when the host or the address is allow-listed.
 */
export function checkAddress(host: string, address: string, allowList: AllowList): AddressVerdict {
  const kind = classifyAddress(address);
  if (kind === 'public') return { allowed: true, kind };
  const trusted =
    allowList.hosts.has(normaliseHost(host)) || allowList.addresses.check(address, familyOf(address));
  return trusted ? { allowed: true, kind } : { allowed: false, kind };
}
