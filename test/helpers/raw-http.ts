import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * HTTP/1.1 over a bare socket, for what fetch cannot do: trickle a body byte by byte, send a
 * Content-Length that lies, or stop halfway and keep the connection open.
 */
export type RawReply = {
  status: number;
  headers: Record<string, string>;
  body: any;
};

export type RawConnection = {
  socket: net.Socket;
  /** The first response on the connection, once it has fully arrived. */
  reply: Promise<RawReply>;
  /** True once a complete response has arrived. */
  answered(): boolean;
  /** Resolves true once the server has closed the connection, false if it is still open after `ms`. */
  closedWithin(ms: number): Promise<boolean>;
  write(bytes: string | Buffer): Promise<void>;
  /** Writes one byte at a time, `delayMs` apart, until done or the server answered or closed. */
  trickle(bytes: Buffer, delayMs: number): Promise<void>;
  destroy(): void;
};

export function openRaw(baseUrl: string): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => resolve(wrap(socket)));
    socket.once('error', reject);
  });
}

function wrap(socket: net.Socket): RawConnection {
  let received = Buffer.alloc(0);
  let parsed: RawReply | undefined;
  let isClosed = false;
  let settleReply: (reply: RawReply) => void;
  let failReply: (error: Error) => void;
  const reply = new Promise<RawReply>((resolve, reject) => {
    settleReply = resolve;
    failReply = reject;
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  const tryParse = (atEnd: boolean) => {
    if (parsed) return;
    const headerEnd = received.indexOf('\r\n\r\n');
    if (headerEnd === -1) return;
    const [statusLine, ...headerLines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      })
    );
    const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    const bodyBytes = received.subarray(headerEnd + 4);
    if (length === undefined ? !atEnd : bodyBytes.length < length) return;
    const text = bodyBytes.subarray(0, length ?? bodyBytes.length).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Left as text so a test can show what came back.
    }
    parsed = { status: Number(statusLine.split(' ')[1]), headers, body };
    settleReply(parsed);
  };

  socket.on('data', (chunk) => {
    received = Buffer.concat([received, chunk]);
    tryParse(false);
  });
  socket.on('end', () => tryParse(true));
  socket.on('close', () => {
    isClosed = true;
    tryParse(true);
    if (!parsed)
      failReply(new Error(`connection closed without a complete response: ${received.toString('latin1')}`));
  });
  socket.on('error', () => {
    // Writing to a connection the server already closed is expected here; 'close' follows.
  });

  const write = (bytes: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed || socket.writableEnded) return resolve();
      socket.write(bytes, () => resolve());
    });

  return {
    socket,
    reply,
    answered: () => parsed !== undefined,
    closedWithin: (ms) =>
      Promise.race([closed.then(() => true), sleep(ms, undefined, { ref: false }).then(() => false)]),
    write,
    async trickle(bytes, delayMs) {
      for (const byte of bytes) {
        if (parsed || isClosed) return;
        await write(Buffer.from([byte]));
        await sleep(delayMs);
      }
    },
    destroy: () => socket.destroy(),
  };
}

/** The head of an HTTP/1.1 request, with the headers exactly as given. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...lines, '', ''].join('\r\n');
}

export type ExactPathReply = { status: number; body: any; headers: http.IncomingHttpHeaders };

/** One request whose target is sent byte for byte as written (fetch would resolve `/./` and `/../` itself). */
export function exactPathRequest(
  baseUrl: string,
  method: string,
  path: string,
  body = '',
  headers: Record<string, string> = {}
): Promise<ExactPathReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: hostname,
        port,
        method,
        path,
        // Node frames a DELETE's body only with a Content-Length: without one its bytes would
        // follow the request unannounced, and the server would read them as a next request.
        headers: {
          ...(body
            ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }
            : {}),
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // kept as text for the failure message
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, headers: response.headers });
        });
      }
    );
    request.on('error', reject);
    request.end(body || undefined);
  });
}
