/** Longest target URL accepted. */
export const MAX_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL with a host, no credentials, no whitespace or control characters
 * (the value is sent back in a Location header and written into HTML pages).
 */
export function isHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /[\s\u0000-\u001f\u007f]/.test(value)) return false;
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
