/**
 * The host name of a Host header: lower-cased, port and trailing dot removed, IPv6 brackets kept
 * off. '' when missing or not a plausible host name (such a request is served as the main host).
 */
export function parseHost(header: string | undefined): string {
  if (!header) return '';
  let host = header;
  if (host.charCodeAt(0) === 91 /* [ */) {
    const end = host.indexOf(']');
    if (end < 0) return '';
    host = host.slice(1, end);
    return /^[0-9a-fA-F:.]+$/.test(host) ? host.toLowerCase() : '';
  }
  const colon = host.indexOf(':');
  if (colon >= 0) {
    if (!/^:\d{1,5}$/.test(host.slice(colon))) return '';
    host = host.slice(0, colon);
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 253 || !/^[A-Za-z0-9.-]+$/.test(host)) return '';
  return host.toLowerCase();
}

/** Host name of an absolute URL (e.g. PUBLIC_URL), lower-cased, without port. */
export function hostOfUrl(url: string): string {
  return new URL(url).hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}
