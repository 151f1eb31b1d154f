/** URLs clients send as destinations: links, targeting rules, QR link data, redirects. */

/** Longest target URL accepted. */
export const MAX_URL_LENGTH = 2048;

function hasSpaceOrControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return /\s/.test(value);
}

/**
 * An absolute http(s) URL with a host, no credentials, no whitespace or control characters
 * (the value is sent back in a Location header and written into HTML pages).
 */
export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || hasSpaceOrControl(value)) return false;
  if (!/^https?:\/\//i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (!url.hostname || url.username || url.password) return false;
  return true;
}

/** URI schemes a deep link may not use: they run code or read local files in the browser. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
]);

/**
 * A deep link: an absolute URI of any scheme (an app's own, `intent:`, or a universal https
 * link), at most 2048 characters, no whitespace or control characters, not a scheme that runs
 * script or reads files.
 */
export function isAppLink(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || hasSpaceOrControl(value)) return false;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return false;
  try {
    return !FORBIDDEN_SCHEMES.has(new URL(value).protocol.toLowerCase());
  } catch {
    return false;
  }
}

/** The target as stored: printable ASCII as given; anything else percent-encoded by URL (it goes into a Location header). */
export function storedUrl(url: string): string {
  return /^[\x21-\x7e]+$/.test(url) ? url : new URL(url).href;
}
