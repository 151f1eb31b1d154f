import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { PublicUrls } from '@app/common';
import { ResolvedHost } from '@app/links';

import { LinkCache } from '../link-cache/link-cache';
import { PublicRequestContext } from '../public/public-routes';
import { PublicResponder } from '../public/responder';
import { askedDomain, LookupBudget } from './tls-ask';

/** Uncached host lookups per second and replica (and the burst allowed). */
export const ASK_LOOKUPS_PER_SECOND = 20;
export const ASK_LOOKUP_BURST = 100;

const YES = Buffer.from('ok\n');
// prettier-ignore
const YES_HEADERS = [
  'Content-Type', 'text/plain; charset=utf-8',
  'Content-Length', String(YES.length),
  'Cache-Control', 'no-store',
  'X-Content-Type-Options', 'nosniff',
];
const BAD = Buffer.from('domain: expected one host name\n');
// prettier-ignore
const BAD_HEADERS = [
  'Content-Type', 'text/plain; charset=utf-8',
  'Content-Length', String(BAD.length),
  'Cache-Control', 'no-store',
  'X-Content-Type-Options', 'nosniff',
];

/**
 * `GET /tls/ask?domain=<host>`: the "ask" endpoint of on-demand TLS (Caddy; Traefik and other
 * proxies make the same check). 200 for PUBLIC_URL's host and for a verified branded domain, 404
 * for anything else, 400 for a missing or malformed `domain`. Served on the main host and hosts
 * that are no branded domain (the proxy asks on its own upstream address); a branded domain's
 * `/tls/ask` is its ordinary 404. The answer comes from the `host` cache of LinkCache (memory,
 * Redis, then one query by the unique `domains.host` index; unknown hosts cached too), and
 * lookups that reach beyond memory are rate-limited per process (LookupBudget).
 */
@Injectable()
export class TlsAskHandler {
  private readonly publicHost: string;
  private readonly budget = new LookupBudget(ASK_LOOKUPS_PER_SECOND, ASK_LOOKUP_BURST);

  constructor(
    private readonly cache: LinkCache,
    private readonly respond: PublicResponder,
    urls: PublicUrls,
  ) {
    this.publicHost = urls.host;
  }

  handle(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: PublicRequestContext,
  ): void | Promise<void> {
    if (ctx.domain !== null || ctx.path !== '/tls/ask')
      return this.respond.notFound(res, ctx.domain);
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const host = askedDomain(q < 0 ? '' : url.slice(q + 1));
    if (host === null) {
      res.writeHead(400, BAD_HEADERS);
      return void res.end(BAD);
    }
    if (host === this.publicHost) return this.yes(res);
    // branded domains have two labels or more
    if (host.indexOf('.') < 0) return this.respond.notFound(res);
    const held = this.cache.peekHost(host);
    if (held !== undefined) return this.answer(res, held);
    if (!this.budget.take()) return this.respond.notFound(res);
    return this.cache.resolveHost(host).then((d) => this.answer(res, d));
  }

  private answer(res: ServerResponse, domain: ResolvedHost | null): void {
    if (domain !== null && domain.verified) this.yes(res);
    else this.respond.notFound(res);
  }

  private yes(res: ServerResponse): void {
    res.writeHead(200, YES_HEADERS);
    res.end(YES);
  }
}
