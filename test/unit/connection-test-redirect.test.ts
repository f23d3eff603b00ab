import http from 'node:http';
import type { AddressInfo } from 'node:net';
import connectionTest from '../../server/src/services/connection/connection-test';

/** Just enough of Strapi for the service: a public URL, a key, and the test's time limit. */
const withPublicUrl = (url: string) =>
  ({
    plugin: () => ({
      service: () => ({
        configuredBaseUrl: async () => ({ url }),
        acceptedKeys: async () => ['pb_test_key_0123456789abcdef'],
      }),
    }),
    config: { get: () => ({ connectionTest: { timeoutMs: 2_000 } }) },
  }) as never;

describe('Test connection on a Public URL that redirects', () => {
  let server: http.Server;
  let origin: string;
  beforeAll(async () => {
    // An internal service that redirects with a token in the credentials and the query.
    server = http.createServer((_, res) => {
      res.writeHead(302, { location: 'http://svc:hunter2@internal.corp/next?token=AKIA-EXAMPLE#frag' });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('shows the origin and path of the Location, not its credentials or query', async () => {
    const result = await connectionTest({ strapi: withPublicUrl(`${origin}/api/publish-bridge`) }).run();
    expect(result.ok).toBe(false);
    expect(result.message).toContain(`${origin}/api/publish-bridge redirects to http://internal.corp/next.`);
    expect(result.message).not.toMatch(/hunter2|AKIA|token|frag/);
  });
});
