import pluginConfig from '../../server/src/config';
import {
  allowListEntryProblem,
  checkAddress,
  classifyAddress,
  normaliseHost,
  parseAllowList,
  type AddressKind,
} from '../../server/src/network/address-guard';

const NOBODY = parseAllowList([]);

describe('classifyAddress on IPv4', () => {
  it.each<[string, AddressKind]>([
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.20', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.99', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each<[string, AddressKind]>([
    ['192.31.196.1', 'reserved'],
    ['192.175.48.1', 'reserved'],
    ['192.52.193.1', 'reserved'],
  ])('%s (AS112, AMT: IANA special-purpose ranges ipaddr.js names) is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '11.0.0.1',
    '192.169.0.1',
    '223.255.255.255',
  ])('%s, just outside or far from every special range, is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });
});

describe('classifyAddress on IPv6', () => {
  it.each<[string, AddressKind]>([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['4000::1', 'reserved'],
    ['64:ff9b:1::a00:1', 'private'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each<[string, AddressKind]>([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::FFFF:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:100.64.0.1', 'carrier-grade NAT'],
    ['::ffff:0.0.0.0', 'unspecified'],
  ])('IPv4-mapped %s is %s, like the IPv4 address it carries', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each<[string, AddressKind]>([
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::c0a8:101', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a00:1::', 'private'],
  ])('NAT64 or 6to4 %s is %s, like the IPv4 address it carries', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });

  it.each<[string, AddressKind]>([
    ['fe80::1%en-0.1', 'link-local'],
    ['::ffff:0:7f00:1', 'reserved'],
    ['::ffff:0:808:808', 'reserved'],
    ['64:ff9b::c000:20a', 'documentation'],
    ['2002:c612:1::1', 'benchmarking'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['64:ff9b::ffff:ffff', 'broadcast'],
    ['2002:f000:1::1', 'reserved'],
    ['64:ff9b:1::808:808', 'private'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['2001:3::1', 'reserved'],
    ['2001:4:112::1', 'reserved'],
    ['2001:20::1', 'reserved'],
    ['2620:4f:8000::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['fec0::1%eth0', 'private'],
    ['::8.8.8.8', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['::224.0.0.1', 'reserved'],
  ])('%s, which ipaddr.js names otherwise or not at all, is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('throws on a short, octal or hex IPv4 form that ipaddr.js would read but no socket is given', () => {
    for (const address of ['127.1', '0177.0.0.1', '0x7f.0.0.1', '2130706433']) {
      expect(() => classifyAddress(address)).toThrow('is not an IP address');
    }
  });

  it('throws on something that is not an IP address', () => {
    expect(() => classifyAddress('localhost')).toThrow('is not an IP address');
    expect(() => classifyAddress('[::1]')).toThrow('is not an IP address');
  });
});

describe('checkAddress', () => {
  it('allows public addresses without any allow-list', () => {
    expect(checkAddress('images.example.org', '93.184.215.14', NOBODY)).toEqual({
      allowed: true,
      kind: 'public',
    });
    expect(checkAddress('images.example.org', '2606:4700:4700::1111', NOBODY).allowed).toBe(true);
  });

  it('refuses loopback, private and link-local addresses that are not allow-listed, naming the kind', () => {
    expect(checkAddress('127.0.0.1', '127.0.0.1', NOBODY)).toEqual({ allowed: false, kind: 'loopback' });
    expect(checkAddress('evil.example', '10.0.0.5', NOBODY)).toEqual({ allowed: false, kind: 'private' });
    expect(checkAddress('metadata', '169.254.169.254', NOBODY)).toEqual({
      allowed: false,
      kind: 'link-local',
    });
    expect(checkAddress('[::1]', '::1', NOBODY)).toEqual({ allowed: false, kind: 'loopback' });
    expect(checkAddress('evil.example', '::ffff:127.0.0.1', NOBODY)).toEqual({
      allowed: false,
      kind: 'loopback',
    });
  });

  it('allows any address of an allow-listed host name, matched case-insensitively and without a trailing dot', () => {
    const allowList = parseAllowList(['CDN.Internal']);
    expect(checkAddress('cdn.internal', '10.1.2.3', allowList).allowed).toBe(true);
    expect(checkAddress('cdn.internal.', '127.0.0.1', allowList).allowed).toBe(true);
    expect(checkAddress('CDN.INTERNAL', 'fd00::5', allowList).allowed).toBe(true);
    expect(checkAddress('other.internal', '10.1.2.3', allowList)).toEqual({
      allowed: false,
      kind: 'private',
    });
    expect(checkAddress('sub.cdn.internal', '10.1.2.3', allowList).allowed).toBe(false);
  });

  it('allows an allow-listed IP address whatever host name resolved to it, and no other', () => {
    const allowList = parseAllowList(['127.0.0.1']);
    expect(checkAddress('127.0.0.1', '127.0.0.1', allowList).allowed).toBe(true);
    expect(checkAddress('rebind.example', '127.0.0.1', allowList).allowed).toBe(true);
    expect(checkAddress('rebind.example', '::ffff:127.0.0.1', allowList).allowed).toBe(true);
    expect(checkAddress('127.0.0.2', '127.0.0.2', allowList).allowed).toBe(false);
    expect(checkAddress('[::1]', '::1', allowList).allowed).toBe(false);
  });

  it('allows IPv6 addresses written with or without brackets, in any spelling', () => {
    const allowList = parseAllowList(['[::1]', 'fd00::1']);
    expect(checkAddress('[::1]', '::1', allowList).allowed).toBe(true);
    expect(checkAddress('[::1]', '0:0:0:0:0:0:0:1', allowList).allowed).toBe(true);
    expect(checkAddress('x', 'fd00:0:0::1', allowList).allowed).toBe(true);
    expect(checkAddress('x', 'fd00::2', allowList).allowed).toBe(false);
  });

  it('allows addresses inside an allow-listed CIDR range only', () => {
    const allowList = parseAllowList(['10.20.0.0/16', 'fd00:1::/32']);
    expect(checkAddress('a', '10.20.255.1', allowList).allowed).toBe(true);
    expect(checkAddress('a', '10.21.0.1', allowList)).toEqual({ allowed: false, kind: 'private' });
    expect(checkAddress('a', 'fd00:1:ffff::1', allowList).allowed).toBe(true);
    expect(checkAddress('a', 'fd00:2::1', allowList)).toEqual({ allowed: false, kind: 'unique-local' });
  });
});

describe('allow-list entries', () => {
  it.each([
    'localhost',
    'cdn.internal',
    '127.0.0.1',
    '::1',
    '[::1]',
    '10.0.0.0/8',
    'fc00::/7',
    'Images.Example.ORG.',
  ])('accepts %s', (entry) => {
    expect(allowListEntryProblem(entry)).toBeUndefined();
  });

  it.each([
    '',
    ' ',
    'http://cdn.internal',
    'cdn.internal:8080',
    'cdn.internal/images',
    'user@cdn',
    '10.0.0.0/33',
    '10.0.0.0/x',
    'fc00::/129',
    'not a host',
    '010.0.0.0/8',
  ])('rejects %j with a message that says what is expected', (entry) => {
    expect(allowListEntryProblem(entry)).toMatch(/is not a host name, an IP address or a CIDR range/);
    expect(() => parseAllowList([entry])).toThrow(TypeError);
  });

  // Number() reads '' and '.' as 0 (a /0 that allowed every address), '0x8' and '1e1' as numbers;
  // '-0' passed and then aborted the process inside BlockList.addSubnet.
  it.each([
    ['10.0.0.0/', 32],
    ['10.0.0.0/.', 32],
    ['fd00::/', 128],
    ['10.0.0.0/-0', 32],
    ['10.0.0.0/-8', 32],
    ['10.0.0.0/0x8', 32],
    ['10.0.0.0/1e1', 32],
    ['10.0.0.0/ 8', 32],
    ['10.0.0.0/8.0', 32],
    ['10.0.0.0/0008', 32],
    ['fd00::/+8', 128],
  ])('rejects the prefix length of %j, saying what it must be', (entry, maxPrefix) => {
    expect(allowListEntryProblem(entry)).toBe(
      `"${entry}" is not a host name, an IP address or a CIDR range such as "10.0.0.0/8": ` +
        `the prefix length must be a number from 1 to ${maxPrefix}`
    );
    expect(() => parseAllowList([entry])).toThrow(TypeError);
  });

  it.each(['0.0.0.0/0', '10.0.0.0/0', '::/0', 'fd00::/000'])(
    'rejects %j, which would allow every address',
    (entry) => {
      expect(allowListEntryProblem(entry)).toBe(
        `"${entry}" allows every address; list the private ranges the site needs instead`
      );
    }
  );

  it.each([
    ['10.0.0.1/8', '10.0.0.0/8'],
    ['192.168.1.1/24', '192.168.1.0/24'],
    ['fd00::1/8', 'fd00::/8'],
  ])('rejects %j, whose host bits are set, naming the range it may mean', (entry, range) => {
    expect(allowListEntryProblem(entry)).toBe(
      `"${entry}" has host bits set: write the range as "${range}" or the address alone`
    );
  });

  it.each(['fe80::1%eth0', '[fe80::1%25eth0]', 'fe80::%eth0/64'])('rejects the zone id in %j', (entry) => {
    expect(allowListEntryProblem(entry)).toBe(
      `"${entry}" has a zone id (%...); write the address without it`
    );
  });

  it.each(['*.example.com', '*'])('rejects the wildcard %j, which would never match', (entry) => {
    expect(allowListEntryProblem(entry)).toBe(
      `"${entry}" is a wildcard, which is not supported; list each host name`
    );
  });

  it('accepts prefixes from 1 to the full length, a single address as a range included', () => {
    for (const entry of ['0.0.0.0/1', '10.0.0.0/08', '10.0.0.1/32', '::/1', 'fd00::1/128']) {
      expect(allowListEntryProblem(entry)).toBeUndefined();
    }
    const allowList = parseAllowList(['10.0.0.0/08']);
    expect(checkAddress('a', '10.255.0.1', allowList).allowed).toBe(true);
    expect(checkAddress('a', '127.0.0.1', allowList).allowed).toBe(false);
  });
});

describe('normaliseHost', () => {
  it('lower-cases, unbrackets IPv6 and drops a trailing dot', () => {
    expect(normaliseHost('Example.COM.')).toBe('example.com');
    expect(normaliseHost('[::1]')).toBe('::1');
    expect(normaliseHost('[FD00::1]')).toBe('fd00::1');
  });
});

describe('media.allowedHosts in the plugin config', () => {
  const withAllowedHosts = (allowedHosts: string[]) => ({
    ...pluginConfig.default,
    media: { ...pluginConfig.default.media, allowedHosts },
  });

  it('accepts host names, addresses and CIDR ranges', () => {
    expect(() =>
      pluginConfig.validator(withAllowedHosts(['cdn.internal', '127.0.0.1', '10.0.0.0/8']))
    ).not.toThrow();
  });

  it('fails the boot on an entry that is a URL, naming the entry', () => {
    expect(() => pluginConfig.validator(withAllowedHosts(['cdn.internal', 'http://cdn.internal']))).toThrow(
      /media\.allowedHosts\.1: "http:\/\/cdn\.internal" is not a host name, an IP address or a CIDR range/
    );
  });

  it.each([
    [
      '10.0.0.0/-0',
      /media\.allowedHosts\.0: "10\.0\.0\.0\/-0" is not .*the prefix length must be a number from 1 to 32/,
    ],
    ['10.0.0.0/', /media\.allowedHosts\.0: "10\.0\.0\.0\/" is not .*the prefix length/],
    ['::/0', /media\.allowedHosts\.0: "::\/0" allows every address/],
    ['10.0.0.1/8', /media\.allowedHosts\.0: "10\.0\.0\.1\/8" has host bits set/],
    ['*.example.com', /media\.allowedHosts\.0: "\*\.example\.com" is a wildcard/],
  ])('fails the boot on %j with the reason, naming the option', (entry, message) => {
    expect(() => pluginConfig.validator(withAllowedHosts([entry]))).toThrow(message);
  });

  it('checks platform.allowedHosts the same way', () => {
    expect(() =>
      pluginConfig.validator({
        ...pluginConfig.default,
        platform: { ...pluginConfig.default.platform, allowedHosts: ['fe80::1%eth0'] },
      })
    ).toThrow(/platform\.allowedHosts\.0: "fe80::1%eth0" has a zone id/);
  });
});
