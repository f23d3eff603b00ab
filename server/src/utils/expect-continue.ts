import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Node answers `Expect: 100-continue` by itself, inviting the body before anything checked the
 * headers. Here every invitation is held and handed to the contract gate, which sends it once
 * the request is known to be someone else's, or once the plugin's own request passed its header
 * checks: a stranger is refused before sending a byte of its body. The listener reads nothing of
 * the request itself, so no request target, however malformed, can make it throw.
 */
const invitationsHeld = new WeakSet<IncomingMessage>();

export function holdContinueFor(server: Server) {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    invitationsHeld.add(request);
    try {
      server.emit('request', request, response);
    } catch {
      // Koa handles its errors itself; should anything still escape, this request ends here
      // rather than the process.
      if (!response.headersSent) response.writeHead(400, { Connection: 'close' });
      response.end();
    }
  });
}

/** Invites the body whose invitation was held. */
export function sendHeldContinue(request: IncomingMessage, response: ServerResponse) {
  if (invitationsHeld.delete(request)) response.writeContinue();
}
