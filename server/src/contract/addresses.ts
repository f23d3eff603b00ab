/**
 * Rules about addresses that the server and the settings page (admin/src) share. No Strapi import:
 * the browser loads this file.
 */

/** Whether `text` is an absolute http(s) URL a browser would follow: parsed, not matched. */
export function isAbsoluteHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** Hosts that never leave the machine: plain HTTP to them is how a site is tried out locally. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether `url` is plain HTTP to another machine, where a key sent with every request would
 * travel in clear: the platform refuses such a base URL (it requires HTTPS, except to the machine
 * it runs on), and the site refuses such a platform URL. An unparsable address is left to the
 * validation that reports it.
 */
export function needsHttps(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  return parsed.protocol === 'http:' && !LOCAL_HOSTS.has(host) && !host.endsWith('.localhost');
}
