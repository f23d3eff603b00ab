'use strict';

const net = require('node:net');
const { rssMb } = require('./server');

const CHUNK = Buffer.alloc(64 * 1024, 0x7b);
const SAMPLE_MS = 20;
const CLOSED_BY_SERVER = new Set(['EPIPE', 'ECONNRESET']);
/** The outcome of a connection the server closed before it read the body: refused too. */
const REFUSED_BY_CLOSING = 'closed by the server';

/**
 * One client that is not authenticated: headers with a wrong key and a fresh timestamp, then
 * all `bytes` of body as fast as the socket takes them, answered or not, as an attacker would.
 * Resolves with the answer's status, or with what ended the connection before an answer was read.
 * @param {string} baseUrl
 * @param {string} path
 * @param {number} bytes
 * @returns {Promise<number | string>}
 */
function sendUnauthenticated(baseUrl, path, bytes) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    let received = '';
    /** @type {number | undefined} */
    let status;
    let ended = false;
    const end = (/** @type {string} */ outcome) => {
      if (ended) return;
      ended = true;
      socket.destroy();
      resolve(status ?? outcome);
    };
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      status ??= Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]) || undefined;
    });
    // The server refuses before the body and closes the connection: writing on then fails with
    // EPIPE or ECONNRESET, often before its 401 has been read. Either way it was refused.
    socket.on('error', (/** @type {NodeJS.ErrnoException} */ error) => {
      const code = error.code ?? 'error';
      end(CLOSED_BY_SERVER.has(code) ? REFUSED_BY_CLOSING : code);
    });
    socket.on('close', () => end(REFUSED_BY_CLOSING));
    socket.on('connect', async () => {
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          `Host: ${hostname}`,
          'Content-Type: application/json',
          `Content-Length: ${bytes}`,
          'X-API-Key: not-the-key-of-this-site-0123456789',
          `X-Publisher-Timestamp: ${Date.now()}`,
          `X-Publisher-Signature: ${'0'.repeat(64)}`,
          '',
          '',
        ].join('\r\n')
      );
      for (let sent = 0; sent < bytes && !ended; sent += CHUNK.length) {
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - sent));
        if (!socket.write(piece)) await new Promise((drained) => socket.once('drain', drained));
      }
      // Everything sent: give the server a moment to answer a body it read to the end.
      while (!ended && status === undefined) await new Promise((wait) => setTimeout(wait, 50));
      end('sent');
    });
  });
}

/**
 * G: `clients` strangers at once, each sending a `bytes` body with a wrong key. Reports the
 * server's resident memory before (after a full collection) and its peak while they send, read
 * from /proc every 20 ms: what the server buffers for requests it will refuse.
 * @param {{ server: import('./server').Server; path: string; clients?: number; bytes?: number }} options
 */
async function unauthenticatedBodies({ server, path, clients = 50, bytes = 10 * 1024 * 1024 }) {
  const before = await server.memoryMb();
  let peak = rssMb(server.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(server.pid));
  }, SAMPLE_MS);
  const began = Date.now();
  const outcomes = await Promise.all(
    Array.from({ length: clients }, () => sendUnauthenticated(server.baseUrl, path, bytes))
  );
  const seconds = (Date.now() - began) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(server.pid));
  /** @type {Record<string, number>} */
  const counts = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return { clients, bytes, beforeMb: before.rss, peakMb: peak, seconds, outcomes: counts };
}

/**
 * 401, or a connection the server closed: every stranger was turned away.
 * @param {{ clients: number; outcomes: Record<string, number> }} result
 */
const allRefused = ({ clients, outcomes }) =>
  (outcomes[401] ?? 0) + (outcomes[REFUSED_BY_CLOSING] ?? 0) === clients;

module.exports = { allRefused, unauthenticatedBodies };
