import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { freePort, onFreePort, waitForHealth } from '../../scripts/lib/example-site.js';

/**
 * The scripts that boot a site (template sites, bench, browser test) take a free port, then
 * Strapi opens it seconds later; under CI another process (a test's Strapi on an ephemeral port)
 * may take it meanwhile. Its health check must not pass for the site's, and the site is started
 * again on another port.
 */
const healthy = (_request: http.IncomingMessage, response: http.ServerResponse) =>
  response.writeHead(204).end();

function exitOf(child: ChildProcess) {
  return new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal))
  );
}

describe('a site on a free port', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((child) => child.kill('SIGKILL')));

  it('does not take another process answering on its port for the site', async () => {
    const port = await freePort();
    const stranger = http.createServer(healthy).listen(port, '127.0.0.1');
    const site = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    children.push(site);
    try {
      await expect(
        waitForHealth(`http://127.0.0.1:${port}`, exitOf(site), { timeoutMs: 1_500, pid: site.pid })
      ).rejects.toThrow(/did not answer/);
    } finally {
      stranger.close();
    }
  });

  it('is ready once its own process answers on the port', async () => {
    const port = await freePort();
    const site = spawn(process.execPath, [
      '-e',
      `require('node:http').createServer((q, r) => r.writeHead(204).end()).listen(${port}, '127.0.0.1')`,
    ]);
    children.push(site);
    await expect(
      waitForHealth(`http://127.0.0.1:${port}`, exitOf(site), { timeoutMs: 10_000, pid: site.pid })
    ).resolves.toBeUndefined();
  });

  it('is started again on another port when Strapi found its port taken, and only then', async () => {
    const ports: number[] = [];
    const started = await onFreePort(async (port) => {
      ports.push(port);
      if (ports.length < 2)
        throw new Error(`error: The port ${port} is already used by another application.`);
      return port;
    });
    expect(ports).toHaveLength(2);
    expect(started).toBe(ports[1]);

    let attempts = 0;
    await expect(
      onFreePort(async () => {
        attempts += 1;
        throw new Error('Strapi stopped before it was ready (exit 1).');
      })
    ).rejects.toThrow(/stopped/);
    expect(attempts).toBe(1);
  });
});
