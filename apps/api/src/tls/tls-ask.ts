import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what it refuses
const CONTROL_OR_SPACE = /[\s\u0000-\u001f\u007f]/;

/**
 * The `domain` of `GET /tls/ask?domain=<host>` as the domains feature stores hosts (see
 * parseBrandedDomain): lower-cased, one trailing dot dropped, an internationalised name as
 * punycode (IDNA, as `new URL` does). Null when there is no single, well-formed `domain`: a
 * missing, empty or repeated parameter, a port, spaces, anything that is no host name. An IP
 * address is returned as is (lower-cased) (only PUBLIC_URL's host can be one).
 */
export function askedDomain(query: string): string | null {
  const params = new URLSearchParams(query);
  const all = params.getAll('domain');
  if (all.length !== 1) return null;
  let raw = all[0];
  if (raw === '' || raw.length > 254 || CONTROL_OR_SPACE.test(raw)) return null;
  if (raw.endsWith('.')) raw = raw.slice(0, -1);
  if (isIP(raw) !== 0) return raw.toLowerCase();
  // ASCII names are only lower-cased; others go through IDNA ('' when not a valid name)
  const host = /^[\x21-\x7e]*$/.test(raw) ? raw.toLowerCase() : domainToASCII(raw);
  if (host === '' || host.length > 253) return null;
  return host.split('.').every((l) => LABEL.test(l)) ? host : null;
}

/**
 * Lookups of hosts the process does not hold in memory, per second: a token bucket, so that a
 * flood of made-up names (an attacker sending random SNI names to the proxy, which asks for each)
 * costs Postgres at most `perSecond` queries per second and replica. Past it the answer is 404
 * without a lookup; the proxy asks again at the next handshake.
 */
export class LookupBudget {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  take(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
