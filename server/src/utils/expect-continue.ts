import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Node answers `Expect: 100-continue` by itself, inviting the body before anything checked the
 * headers. For the plugin's paths the invitation waits until the gate accepted the headers, so a
 * stranger is refused before sending a byte of its body; other paths are invited as before.
 */
const invitationsHeld = new WeakSet<IncomingMessage>();

/** The path as Koa reads it: the target up to `?`, or the path of an absolute-form target (`http://host/...`). */
const pathOf = (target: string) =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? new URL(target).pathname : target.split('?')[0];

export function holdContinueFor(server: Server, isPluginPath: (path: string) => boolean) {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (isPluginPath(pathOf(request.url ?? '/'))) invitationsHeld.add(request);
    else response.writeContinue();
    server.emit('request', request, response);
  });
}

/** Invites the body whose invitation was held: the headers have been accepted. */
export function sendHeldContinue(request: IncomingMessage, response: ServerResponse) {
  if (invitationsHeld.delete(request)) response.writeContinue();
}
