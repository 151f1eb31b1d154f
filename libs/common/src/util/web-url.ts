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

/** Why a URL is no http(s) target (see httpUrlProblem): its form, or its host. */
const NOT_A_WEB_URL =
  'must be an absolute http(s) URL of at most 2048 characters, without credentials or spaces';
const BAD_HOST =
  'must have a host of letters, digits, - and . only (after IDNA), without empty labels';

/**
 * A host name as a target may name it: `URL.hostname` (IDNA applied, so lower-case ASCII) of
 * letters, digits, `-` and `.` only, trailing dots aside no empty label, at most 253 characters;
 * or a bracketed IPv6 literal. Anything else (`_`, `*`, quotes, `;`, …) is refused: the host is
 * written into Location headers, HTML and the frame page's Content-Security-Policy.
 */
export function isWebHost(hostname: string): boolean {
  if (hostname.charCodeAt(0) === 91 /* [ */) return /^\[[0-9a-f:.]+\]$/.test(hostname);
  const host = hostname.replace(/\.+$/, '');
  return host.length > 0 && host.length <= 253 && /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/.test(host);
}

/**
 * What keeps `value` from being an http(s) target, or null: it must be an absolute http(s) URL
 * with a host (isWebHost), no credentials, no whitespace or control characters (the value is sent
 * back in a Location header and written into HTML pages).
 */
export function httpUrlProblem(value: string): string | null {
  if (value.length > MAX_URL_LENGTH || hasSpaceOrControl(value)) return NOT_A_WEB_URL;
  if (!/^https?:\/\//i.test(value)) return NOT_A_WEB_URL;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return NOT_A_WEB_URL;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return NOT_A_WEB_URL;
  if (!url.hostname || url.username || url.password) return NOT_A_WEB_URL;
  if (!isWebHost(url.hostname)) return BAD_HOST;
  return null;
}

/** An absolute http(s) target URL (httpUrlProblem finds nothing). */
export function isHttpUrl(value: string): boolean {
  return httpUrlProblem(value) === null;
}

/**
 * Schemes browsers handle themselves (internal pages, local files, script, archives, the Windows
 * support tool): never a deep link, in any letter case. `x-safari-*` is matched as a prefix.
 */
const BROWSER_SCHEMES = new Set([
  'view-source',
  'filesystem',
  'jar',
  'ms-msdt',
  'javascript',
  'data',
  'vbscript',
  'file',
  'blob',
  'about',
  'chrome',
]);

/** The platform a deep link is for: `deeplink.apple` (iOS) or `deeplink.google` (Android). */
export type AppPlatform = 'apple' | 'google';

/** Percent-escapes decoded once, tolerantly: malformed UTF-8 becomes U+FFFD, a lone `%` stays. */
export function percentDecode(value: string): string {
  if (!value.includes('%')) return value;
  return value.replace(/(?:%[0-9a-f]{2})+/gi, (run) =>
    Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'),
  );
}

/**
 * The `S.browser_fallback_url` values of an Android `intent:` URI (decoded), where Chrome sends
 * visitors who lack the app; [] for other URIs.
 */
export function intentFallbacks(value: string): string[] {
  if (!/^intent:/i.test(value)) return [];
  return [...value.matchAll(/[#;]S\.browser_fallback_url=([^;]*)/gi)].map((m) =>
    percentDecode(m[1]),
  );
}

/** The lower-case scheme of an absolute URI (`[a-z][a-z0-9+.-]*`), or null. */
function schemeOf(value: string): string | null {
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(value);
  return m ? m[1].toLowerCase() : null;
}

function isBrowserScheme(scheme: string): boolean {
  return BROWSER_SCHEMES.has(scheme) || scheme.startsWith('x-safari-');
}

/**
 * What keeps `value` from being a deep link for `platform`, or null. Allowed: `https` and `http`
 * (as any target), `itms-apps`, `market`, `intent:` (Android only; its `scheme=` not a browser
 * scheme, its fallback URL an http(s) target), and app schemes `[a-z][a-z0-9+.-]*` other than the
 * browsers' own (BROWSER_SCHEMES, in any letter case). At most 2048 characters, no whitespace or
 * control characters.
 */
export function appLinkProblem(value: string, platform: AppPlatform): string | null {
  const scheme = schemeOf(value);
  if (value.length > MAX_URL_LENGTH || hasSpaceOrControl(value) || scheme === null)
    return 'must be an absolute URI of at most 2048 characters (app scheme or https), without spaces';
  if (isBrowserScheme(scheme)) return `the ${scheme}: scheme is not allowed`;
  if (scheme === 'http' || scheme === 'https') return httpUrlProblem(value);
  if (scheme === 'intent') {
    if (platform !== 'google') return 'intent: links are for Android (deeplink.google)';
    const inner = /[#;]scheme=([^;]*)/i.exec(value)?.[1];
    if (inner !== undefined && isBrowserScheme(percentDecode(inner).toLowerCase()))
      return `the ${inner}: scheme is not allowed`;
    for (const fallback of intentFallbacks(value))
      if (!isHttpUrl(fallback)) return 'S.browser_fallback_url must be an absolute http(s) URL';
  }
  try {
    new URL(value);
  } catch {
    return 'must be an absolute URI of at most 2048 characters (app scheme or https), without spaces';
  }
  return null;
}

/** The target as stored: printable ASCII as given; anything else percent-encoded by URL (it goes into a Location header). */
export function storedUrl(url: string): string {
  return /^[\x21-\x7e]+$/.test(url) ? url : new URL(url).href;
}
