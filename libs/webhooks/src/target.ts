import { isIP } from 'node:net';

import { isPublicAddress } from '@app/qr';

/** Host of a URL as the allow list names it: lower case, no brackets, no trailing dot. */
export function targetHost(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

/** Whether an operator named this host (or address) in WEBHOOK_ALLOW_HOSTS. */
export function isAllowedHost(host: string, allowHosts: readonly string[]): boolean {
  return allowHosts.some((h) => h.toLowerCase() === host);
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
  const allowed = isAllowedHost(host, allowHosts);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
    return 'must be an absolute https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (!host) return 'must have a host';
  if (!allowed && isIP(host) && !isPublicAddress(host))
    return 'must not point to a private, loopback or link-local address';
  return null;
}
