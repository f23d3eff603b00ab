/**
 * Decides whether a request path is one of the plugin's, at least as broadly as Strapi's router
 * does. The router (@koa/router on path-to-regexp, no `sensitive` or `strict` option) matches
 * `/API/Publish-Bridge/pages/` like `/api/publish-bridge/pages`; a proxy in front may also
 * decode escapes, merge slashes or resolve dot segments before Strapi sees the path. Anything
 * any of them could route to the plugin is treated as the plugin's, so the gate guards it: a
 * path read too broadly only gets authenticated, a path read too narrowly would walk past the gate.
 */

/** `%XX` escapes decoded one by one, so a malformed escape elsewhere does not stop the others. */
const decodeEscapes = (path: string) =>
  path.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** Lower case, escapes decoded, backslashes as slashes, empty and dot segments resolved, no trailing slash. */
export function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of decodeEscapes(path).replace(/\\/g, '/').toLowerCase().split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** The part of `path` below `prefix` in canonical form (`''` for the prefix itself), or undefined outside it. */
export function pathBelowPrefix(path: string, prefix: string): string | undefined {
  const canonical = canonicalPath(path);
  const base = canonicalPath(prefix);
  if (canonical === base) return '';
  return canonical.startsWith(`${base}/`) ? canonical.slice(base.length) : undefined;
}
