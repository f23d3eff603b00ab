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

type Subnet = readonly [network: string, prefix: number];
type SpecialKind = Exclude<AddressKind, 'public'>;

/** IANA special-purpose ranges; the first kind whose ranges hold an address names it. */
const SPECIAL_RANGES: { kind: SpecialKind; ipv4: Subnet[]; ipv6: Subnet[] }[] = [
  { kind: 'unspecified', ipv4: [['0.0.0.0', 8]], ipv6: [['::', 128]] },
  { kind: 'loopback', ipv4: [['127.0.0.0', 8]], ipv6: [['::1', 128]] },
  {
    kind: 'private',
    ipv4: [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
    // Deprecated site-local addresses and local-use NAT64 both reach only the local network.
    ipv6: [
      ['fec0::', 10],
      ['64:ff9b:1::', 48],
    ],
  },
  { kind: 'carrier-grade NAT', ipv4: [['100.64.0.0', 10]], ipv6: [] },
  { kind: 'link-local', ipv4: [['169.254.0.0', 16]], ipv6: [['fe80::', 10]] },
  { kind: 'unique-local', ipv4: [], ipv6: [['fc00::', 7]] },
  {
    kind: 'documentation',
    ipv4: [
      ['192.0.2.0', 24],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
    ],
    ipv6: [
      ['2001:db8::', 32],
      ['3fff::', 20],
    ],
  },
  { kind: 'benchmarking', ipv4: [['198.18.0.0', 15]], ipv6: [['2001:2::', 48]] },
  { kind: 'multicast', ipv4: [['224.0.0.0', 4]], ipv6: [['ff00::', 8]] },
  { kind: 'broadcast', ipv4: [['255.255.255.255', 32]], ipv6: [] },
  {
    kind: 'reserved',
    ipv4: [
      ['192.0.0.0', 24],
      ['192.88.99.0', 24],
      ['240.0.0.0', 4],
    ],
    // IPv4-compatible addresses (deprecated), the discard prefix, IETF protocol assignments (Teredo, ORCHID).
    ipv6: [
      ['::', 96],
      ['100::', 64],
      ['2001::', 23],
    ],
  },
];

/**
 * NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses carry an IPv4 address that a gateway
 * connects to; each refused IPv4 range is refused there too.
 */
function embeddedIPv4Subnets([network, prefix]: Subnet): Subnet[] {
  const octets = network.split('.').map(Number);
  const high = ((octets[0] << 8) | octets[1]).toString(16);
  const low = ((octets[2] << 8) | octets[3]).toString(16);
  return [
    [`64:ff9b::${high}:${low}`, 96 + prefix],
    [`2002:${high}:${low}::`, 16 + prefix],
  ];
}

function blockListOf(ipv4: Subnet[], ipv6: Subnet[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) match the IPv4 ranges: BlockList maps them itself.
const SPECIAL_LISTS = SPECIAL_RANGES.map(({ kind, ipv4, ipv6 }) => ({
  kind,
  list: blockListOf(ipv4, [...ipv6, ...ipv4.flatMap(embeddedIPv4Subnets)]),
}));

/** IPv6 addresses outside global unicast are unassigned, except the forms that carry a public IPv4 address. */
const GLOBAL_UNICAST = blockListOf([], [['2000::', 3]]);
const CARRIES_IPV4 = blockListOf(
  [],
  [
    ['::ffff:0:0', 96],
    ['64:ff9b::', 96],
  ]
);

const familyOf = (address: string) => {
  const version = isIP(address);
  if (version === 0) throw new TypeError(`"${address}" is not an IP address`);
  return version === 4 ? 'ipv4' : 'ipv6';
};

/** What kind of address `address` (an IPv4 or IPv6 literal, without brackets) is. */
export function classifyAddress(address: string): AddressKind {
  const family = familyOf(address);
  for (const { kind, list } of SPECIAL_LISTS) {
    if (list.check(address, family)) return kind;
  }
  if (family === 'ipv6' && !GLOBAL_UNICAST.check(address, 'ipv6') && !CARRIES_IPV4.check(address, 'ipv6')) {
    return 'reserved';
  }
  return 'public';
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

function parseEntry(raw: string): AllowListEntry | undefined {
  const entry = normaliseHost(raw);
  const slash = entry.lastIndexOf('/');
  if (slash !== -1) {
    const network = entry.slice(0, slash);
    const prefix = Number(entry.slice(slash + 1));
    const version = isIP(network);
    const maxPrefix = version === 4 ? 32 : 128;
    if (version === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix) return undefined;
    return { type: 'subnet', network, prefix };
  }
  if (isIP(entry)) return { type: 'address', address: entry };
  try {
    // A bare host name survives URL parsing unchanged; ports, paths and credentials do not.
    return normaliseHost(new URL(`http://${entry}`).hostname) === entry && entry !== ''
      ? { type: 'host', host: entry }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Why an allow-list entry cannot be used, or undefined when it is a host name, an IP address or a CIDR range. */
export function allowListEntryProblem(entry: string): string | undefined {
  return parseEntry(entry)
    ? undefined
    : `"${entry}" is not a host name, an IP address or a CIDR range such as "10.0.0.0/8"`;
}

export function parseAllowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const addresses = new BlockList();
  for (const raw of entries) {
    const entry = parseEntry(raw);
    if (!entry) throw new TypeError(allowListEntryProblem(raw));
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
