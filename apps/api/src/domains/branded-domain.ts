import { isIP } from 'node:net';

import { InvalidFieldError } from '@app/common';

export interface BrandedDomain {
  /** `http(s)://host`, host lower-cased (IDN as punycode): what the API shows. */
  domain: string;
  /** The host alone: what the Host header of a visit is matched against. */
  host: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what it rejects
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f]/;

/**
 * Parses the `domain` of `POST /api/domain/add`: `http://host` or `https://host`, nothing else
 * (no path, query, fragment, credentials or port; one trailing `/` is tolerated). The host must be
 * a DNS name with at least two labels, not an IP address. Throws a 400 naming `domain`.
 */
export function parseBrandedDomain(input: string, field = 'domain'): BrandedDomain {
  const fail = (reason: string) => new InvalidFieldError(field, reason);
  if (CONTROL_OR_SPACE.test(input)) throw fail('must not contain spaces or control characters');
  const m = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(input);
  if (!m) throw fail('must be http://host or https://host');
  const [, scheme, authority, rest] = m;
  if (rest !== '' && rest !== '/')
    throw fail('must be http(s)://host with no path, query or fragment');
  if (authority.includes('@')) throw fail('must not contain credentials');
  if (authority.startsWith('[') || isIP(authority))
    throw fail('must be a domain name, not an IP address');
  if (authority.includes(':'))
    throw fail('must not include a port (branded domains are served on 80 and 443)');
  let url: URL;
  try {
    url = new URL(`${scheme.toLowerCase()}://${authority}/`);
  } catch {
    throw fail('is not a valid host name');
  }
  const host = url.hostname.replace(/\.$/, '');
  const labels = host.split('.');
  if (
    host.length > 253 ||
    labels.length < 2 ||
    !labels.every((l) => LABEL.test(l)) ||
    /^[0-9]+$/.test(labels[labels.length - 1]) ||
    isIP(host)
  ) {
    throw fail('is not a valid host name (expected a name such as example.com)');
  }
  return { domain: `${scheme.toLowerCase()}://${host}`, host };
}

/**
 * What is stored for a redirect URL: the text as sent when it is printable ASCII, else its ASCII
 * serialisation (punycode host, percent-encoded path) so it can go into a Location header.
 */
export function normalizeRedirectUrl(value: string): string {
  if (value === '' || /^[\x21-\x7e]*$/.test(value)) return value;
  return new URL(value).href;
}
