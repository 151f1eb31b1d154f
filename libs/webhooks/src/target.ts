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

/** The WEBHOOK_ALLOW_HOSTS entry that would exempt this URL: its host, with its port when it names one. */
export function allowEntryFor(url: URL): string {
  const host = targetHost(url);
  if (!url.port) return host;
  return `${host.includes(':') ? `[${host}]` : host}:${url.port}`;
}

/** How a refusal tells who may lift it: the operator, naming the URL's host in WEBHOOK_ALLOW_HOSTS. */
export function allowHint(url: URL): string {
  return `an operator can allow it with WEBHOOK_ALLOW_HOSTS=${allowEntryFor(url)}`;
}

/**
 * What is wrong with a webhook URL before any DNS lookup, or null: it must be an absolute https
 * URL (http only for allowed hosts) without credentials, and not a private, loopback or
 * link-local address literal. Host names are checked again at delivery, every DNS answer. The
 * refusals an operator can lift (http, a private address) say how: WEBHOOK_ALLOW_HOSTS.
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
  if (url.protocol === 'http:' && host && !allowed)
    return `must be an absolute https URL (http: ${allowHint(url)})`;
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
    return 'must be an absolute https URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (!host) return 'must have a host';
  if (!allowed && isIP(host) && !isPublicAddress(host))
    return `must not point to a private, loopback or link-local address (${allowHint(url)})`;
  return null;
}
