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

/** The target as stored: printable ASCII as given; anything else percent-encoded by URL (it goes into a Location header). */
export function storedUrl(url: string): string {
  return /^[\x21-\x7e]+$/.test(url) ? url : new URL(url).href;
}

/** `brand.example`, `Brand.Example`, `https://brand.example/` → `brand.example`; null when malformed. */
export function hostOfDomainRef(ref: string): string | null {
  const value = ref.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.port) return null;
    return url.hostname.toLowerCase().replace(/\.$/, '') || null;
  } catch {
    return null;
  }
}

/** A LIKE pattern matching `keyword` literally anywhere (wildcards escaped with backslash). */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
