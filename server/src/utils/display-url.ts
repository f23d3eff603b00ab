/** Up to the first "/", "?" or "#" after the scheme: where a URL may carry `user:password@`. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/*)[^/?#]*@/i;

/** `raw` with any `user:password@` after its scheme removed, for text that may not parse as a URL. */
export function withoutCredentials(raw: string): string {
  return raw.replace(USERINFO, '$1');
}

/**
 * The URL as logs and notes show it: without credentials, and with the values of its query
 * parameters left out, since signed URLs (S3, CDNs) carry their signature there. The names
 * stay, so the URL can still be told apart from others of the same path.
 */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const names = [...new Set(url.searchParams.keys())];
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    const query = names.length > 0 ? `?${names.map((name) => `${name}=…`).join('&')}` : '';
    return `${url.href}${query}`.slice(0, 300);
  } catch {
    return withoutCredentials(raw)
      .replace(/[?#].*$/s, '…')
      .slice(0, 200);
  }
}

/**
 * A redirect's Location for a message: resolved against `base`, origin and path only. The
 * credentials and query it may carry (a token, a signed URL) are another server's to keep.
 */
export function shownLocation(location: string | null | undefined, base: URL | string): string {
  if (!location) return 'no address (no Location header)';
  try {
    const target = new URL(location, base);
    return `${target.origin}${target.pathname}`;
  } catch {
    return 'an invalid address';
  }
}
