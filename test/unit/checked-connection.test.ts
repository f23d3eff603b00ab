import type { LookupAddress } from 'node:dns';
import { parseAllowList } from '../../server/src/network/address-guard';
import { resolveCheckedAddresses } from '../../server/src/network/checked-connection';

/** getaddrinfo stands in: each lookup answers only when the test says so, as a black-hole DNS name never does. */
const pending = new Map<string, (addresses: LookupAddress[]) => void>();
jest.mock('node:dns/promises', () => ({
  lookup: jest.fn((host: string) => new Promise<LookupAddress[]>((resolve) => pending.set(host, resolve))),
}));

const NOBODY = parseAllowList([]);
const PUBLIC: LookupAddress[] = [{ address: '93.184.215.14', family: 4 }];
const resolveWithin = (host: string, timeoutMs: number) =>
  resolveCheckedAddresses(new URL(`http://${host}/a.png`), NOBODY, AbortSignal.timeout(timeoutMs));
const looked = () => [...pending.keys()];

afterEach(() => {
  for (const answer of pending.values()) answer(PUBLIC);
  pending.clear();
});

describe('resolveCheckedAddresses on names whose DNS never answers', () => {
  it('has at most two lookups in getaddrinfo at once, and frees a slot only when a lookup returns', async () => {
    const blackHoles = [1, 2, 3, 4].map((i) => resolveWithin(`img${i}.slow.example`, 50));
    // Each fails at its own time limit, the two that never got a slot included.
    for (const result of blackHoles) await expect(result).rejects.toMatchObject({ name: 'TimeoutError' });
    // The abandoned lookups still hold their threads: two, not four.
    expect(looked()).toEqual(['img1.slow.example', 'img2.slow.example']);

    const later = resolveWithin('images.example', 5_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(looked()).not.toContain('images.example');
    // getaddrinfo gives up on one black-hole name: its thread, and its slot, are free again.
    pending.get('img1.slow.example')!(PUBLIC);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(looked()).toContain('images.example');
    pending.get('images.example')!(PUBLIC);
    await expect(later).resolves.toEqual(PUBLIC);
  });

  it('skips DNS, and the wait for a slot, for an IP literal', async () => {
    const blackHoles = [1, 2].map((i) => resolveWithin(`img${i}.slow.example`, 50).catch(() => undefined));
    await expect(resolveWithin('93.184.215.14', 5_000)).resolves.toEqual(PUBLIC);
    await Promise.all(blackHoles);
  });
});
