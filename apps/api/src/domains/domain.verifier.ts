import { Injectable } from '@nestjs/common';

import { InvalidFieldError } from '@app/common';
import { AppConfig } from '@app/config';

import { DnsLookupError, DnsResolver } from './dns.resolver';

/** Canonical text of an IP address (IPv6 compressed and lower-cased) for comparisons. */
export function normalizeIp(ip: string): string {
  const value = ip.trim().toLowerCase();
  if (!value.includes(':')) return value;
  try {
    return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  } catch {
    return value;
  }
}

const normalizeHost = (host: string) => host.trim().toLowerCase().replace(/\.$/, '');

/**
 * "The domain being added must already point to the service's servers": with DOMAIN_VERIFY=dns
 * the host must resolve to one of SERVICE_IPS (A or AAAA) or be a CNAME of SERVICE_HOST.
 * DOMAIN_VERIFY=off skips the check.
 */
@Injectable()
export class DomainVerifier {
  constructor(
    private readonly config: AppConfig,
    private readonly dns: DnsResolver,
  ) {}

  /** The name of the TXT record that proves ownership of `host`. */
  static recordName(host: string): string {
    return `_linkverify.${host}`;
  }

  /** Where hosts must point (SERVICE_IPS, SERVICE_HOST); null with DOMAIN_VERIFY=off. */
  target(): { addresses: string[]; cname: string | null } | null {
    if (this.config.DOMAIN_VERIFY === 'off') return null;
    return {
      addresses: [...new Set(this.config.SERVICE_IPS.map(normalizeIp))],
      cname: this.config.SERVICE_HOST ? normalizeHost(this.config.SERVICE_HOST) : null,
    };
  }

  /**
   * Whether the TXT record `_linkverify.<host>` holds `token` (always true with DOMAIN_VERIFY=off).
   * The answer is yes or no: what the records hold is never repeated to the caller.
   */
  async ownershipProven(host: string, token: string): Promise<boolean> {
    if (this.config.DOMAIN_VERIFY === 'off') return true;
    try {
      const records = await this.dns.txt(DomainVerifier.recordName(host));
      return records.some((r) => r.trim() === token);
    } catch (err) {
      if (err instanceof DnsLookupError) return false;
      throw err;
    }
  }

  /**
   * 400 unless `host` resolves to one of SERVICE_IPS or is a CNAME of SERVICE_HOST. The message
   * says what is expected (configuration) and never repeats what DNS answered: the service's
   * resolver may see names and addresses the caller must not (internal zones), and an answer is
   * the caller's to look at with their own tools.
   */
  async assertPointsHere(host: string): Promise<void> {
    if (this.config.DOMAIN_VERIFY === 'off') return;
    const ips = new Set(this.config.SERVICE_IPS.map(normalizeIp));
    const serviceHost = this.config.SERVICE_HOST
      ? normalizeHost(this.config.SERVICE_HOST)
      : undefined;
    const expected = [
      ips.size ? `an A/AAAA record in ${[...ips].join(', ')}` : undefined,
      serviceHost ? `a CNAME to ${serviceHost}` : undefined,
    ].filter(Boolean);
    const fail = (why?: string) =>
      new InvalidFieldError(
        'domain',
        `does not point to this service (${why ? `${why}; ` : ''}expected ${expected.length ? expected.join(' or ') : 'nothing: the service has no SERVICE_IPS or SERVICE_HOST configured'})`,
      );

    let answer;
    try {
      answer = await this.dns.lookup(host);
    } catch (err) {
      if (err instanceof DnsLookupError) {
        throw fail(
          err.code === 'ETIMEOUT'
            ? 'the DNS lookup timed out'
            : `the DNS lookup failed: ${err.code}`,
        );
      }
      throw err;
    }
    if ([...answer.a, ...answer.aaaa].some((ip) => ips.has(normalizeIp(ip)))) return;
    if (serviceHost && answer.cname.some((c) => normalizeHost(c) === serviceHost)) return;
    throw fail();
  }
}
