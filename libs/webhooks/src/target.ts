import { isIP } from 'node:net';

import { parseAllowEntry } from '@app/config';
import { isPublicAddress } from '@app/qr';

/** Host of a URL as the allow list names it: lower case, no brackets, no trailing dot. */
export function targetHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Whether an operator named this URL's host (or address) in WEBHOOK_ALLOW_HOSTS: an entry without
 * a port exempts every port of the host, `host:port` only that port (the URL's, or its scheme's
 * default).
 */
export function isAllowedTarget(url: URL, allowHosts: readonly string[]): boolean {
  const host = targetHost(url);
  const port = Number(url.port || (url.protocol === 'http:' ? 80 : 443));
  return allowHosts.some((raw) => {
    const entry = parseAllowEntry(raw);
    return entry !== null && entry.host === host && (entry.port === null || entry.port === port);
  });
}

/**
 * What is wrong with a webhook URL before any DNS lookup, or null: it must be an absolute https
 * URL (http only for allowed hosts) without credentials, and not a private, loopback or
 * link-local address literal. Host names are checked again at delivery, every DNS answer.
 */
export function webhookUrlProblem(value: string, allowHosts: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL';
  }
  const host = targetHost(url);
  const allowed = isAllowedTarget(url, allowHosts);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
    return 'must be an absolute https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (!host) return 'must have a host';
  if (!allowed && isIP(host) && !isPublicAddress(host))
    return 'must not point to a private, loopback or link-local address';
  return null;
}
