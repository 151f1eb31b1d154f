import { Resolver } from 'node:dns/promises';

import { Injectable } from '@nestjs/common';

/** What a host name resolves to; empty lists when it has no record of that kind. */
export interface DnsAnswer {
  a: string[];
  aaaa: string[];
  cname: string[];
}

/** The lookup could not be completed (timeout, resolver failure); `code` is the DNS error code. */
export class DnsLookupError extends Error {
  constructor(readonly code: string) {
    super(`DNS lookup failed (${code})`);
  }
}

/** Answers that mean "no such record", not "the lookup failed". */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/**
 * The DNS side effect of branded-domain verification, behind an injectable class so tests can
 * replace it. A, AAAA and CNAME are asked in parallel; the whole lookup gives up after `timeoutMs`.
 */
@Injectable()
export class DnsResolver {
  async lookup(host: string, timeoutMs = 3000): Promise<DnsAnswer> {
    const resolver = this.createResolver(timeoutMs);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      resolver.cancel();
    }, timeoutMs);
    timer.unref();
    const ask = async (query: Promise<string[]>): Promise<string[]> => {
      try {
        return await query;
      } catch (err) {
        const code = (err as { code?: string }).code ?? 'EUNKNOWN';
        if (NO_RECORD.has(code)) return [];
        throw new DnsLookupError(timedOut || code === 'ECANCELLED' ? 'ETIMEOUT' : code);
      }
    };
    try {
      const [a, aaaa, cname] = await Promise.all([
        ask(resolver.resolve4(host)),
        ask(resolver.resolve6(host)),
        ask(resolver.resolveCname(host)),
      ]);
      return { a, aaaa, cname };
    } finally {
      clearTimeout(timer);
      resolver.cancel();
    }
  }

  /** The TXT records of `name` (each record's strings joined); [] when it has none. */
  async txt(name: string, timeoutMs = 3000): Promise<string[]> {
    const resolver = this.createResolver(timeoutMs);
    const timer = setTimeout(() => resolver.cancel(), timeoutMs);
    timer.unref();
    try {
      return (await resolver.resolveTxt(name)).map((parts) => parts.join(''));
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'EUNKNOWN';
      if (NO_RECORD.has(code)) return [];
      throw new DnsLookupError(code === 'ECANCELLED' ? 'ETIMEOUT' : code);
    } finally {
      clearTimeout(timer);
      resolver.cancel();
    }
  }

  /** The system's resolvers; a test points a subclass at its own server. */
  protected createResolver(timeoutMs: number): Resolver {
    return new Resolver({ timeout: timeoutMs, tries: 1 });
  }
}
