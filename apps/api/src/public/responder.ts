import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable, Logger, Optional } from '@nestjs/common';

import { ClientAddress, mapError } from '@app/common';
import { headerSafeUrl, REDIRECT_CACHE_CONTROL, redirectHeaders } from '@app/links';
import { countableMethod, MAX_HEADER_CHARS, VisitRecorder } from '@app/stats';

import { OutageVisits } from '../permanence/outage-visits';
import { Page, PAGES } from './pages';

/** Headers of every HTML answer of the public side. */
// prettier-ignore
export const SECURITY_HEADERS = [
  'X-Content-Type-Options', 'nosniff',
  'Referrer-Policy', 'strict-origin-when-cross-origin',
  'X-Frame-Options', 'DENY',
];

/** A fixed page with its headers built once. */
export interface StaticPage {
  body: Buffer;
  headers: string[];
}

export function staticPage(page: Page, extra: string[] = []): StaticPage {
  const body = Buffer.from(page.html, 'utf8');
  return {
    body,
    // prettier-ignore
    headers: [
      'Content-Type', 'text/html; charset=utf-8',
      'Content-Length', String(body.length),
      'Content-Security-Policy', page.csp,
      'Cache-Control', 'no-store',
      ...SECURITY_HEADERS,
      ...extra,
    ],
  };
}

/** The fixed answers of the public side. */
export const STATIC = {
  notFound: staticPage(PAGES.notFound),
  gone: staticPage(PAGES.gone),
  disabled: staticPage(PAGES.unavailableForLegalReasons),
  flagged: staticPage(PAGES.flagged),
  methodNotAllowed: staticPage(PAGES.methodNotAllowed, ['Allow', 'GET, HEAD']),
  badForm: staticPage(PAGES.badRequest, ['Connection', 'close']),
  tooManyMisses: staticPage(PAGES.tooManyMisses, ['Retry-After', '60']),
  tooLarge: staticPage(PAGES.tooLarge, ['Connection', 'close']),
  error: staticPage(PAGES.error),
  unavailable: staticPage(PAGES.unavailable, ['Retry-After', '5']),
};

/** A branded domain's answer to unknown paths (empty: the 404 page). */
export interface NotFoundTarget {
  redirect404: string;
  /** The blocklist screened redirect404 as blocked (screenHost): the 451 page. */
  notFoundBlocked?: boolean;
}

/**
 * How every public route answers, in one place (short links, QR codes, campaign pages): pages
 * with the same security headers, redirects, the 404 / 500 / 503 pages, and the hand-off of a
 * visit to the VisitRecorder after the response was written.
 */
@Injectable()
export class PublicResponder {
  private readonly logger = new Logger('PublicSide');

  constructor(
    private readonly clients: ClientAddress,
    private readonly outage: OutageVisits,
    /** Absent in the starting front (apps/api/src/starting): OutageVisits holds every visit then. */
    @Optional() private readonly visits?: VisitRecorder,
  ) {}

  sendStatic(res: ServerResponse, status: number, page: StaticPage): void {
    res.writeHead(status, page.headers);
    res.end(page.body);
  }

  sendPage(
    res: ServerResponse,
    status: number,
    page: Page,
    cacheControl = 'no-store',
    extra: string[] = [],
  ): void {
    const body = Buffer.from(page.html, 'utf8');
    // prettier-ignore
    res.writeHead(status, [
      'Content-Type', 'text/html; charset=utf-8',
      'Content-Length', String(body.length),
      'Content-Security-Policy', page.csp,
      'Cache-Control', cacheControl,
      ...SECURITY_HEADERS,
      ...extra,
    ]);
    res.end(body);
  }

  /** A 302 to `location` (made header-safe). */
  redirect(res: ServerResponse, location: string, cacheControl = REDIRECT_CACHE_CONTROL): void {
    res.writeHead(302, redirectHeaders(headerSafeUrl(location), cacheControl));
    res.end();
  }

  /**
   * An unknown path: the branded domain's redirect404 when it has one (the 451 page when it is
   * blocked), else the 404 page.
   */
  notFound(res: ServerResponse, domain?: NotFoundTarget | null): void {
    if (domain?.redirect404) {
      if (domain.notFoundBlocked) return this.sendStatic(res, 451, STATIC.disabled);
      return this.redirect(res, domain.redirect404, 'no-store');
    }
    this.sendStatic(res, 404, STATIC.notFound);
  }

  methodNotAllowed(res: ServerResponse): void {
    this.sendStatic(res, 405, STATIC.methodNotAllowed);
  }

  /** Never throws: the 503 page when a dependency is down, the 500 page otherwise; always logged. */
  fail(res: ServerResponse, err: unknown): void {
    const { status } = mapError(err);
    const e = err as Error;
    this.logger.error(
      { err: { name: e?.name, message: e?.message, stack: e?.stack } },
      'public request failed',
    );
    try {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (status === 503) this.sendStatic(res, 503, STATIC.unavailable);
      else this.sendStatic(res, 500, STATIC.error);
    } catch {
      res.destroy();
    }
  }

  /**
   * Hands a visit of link `linkId` (owned by `userId`) to the recorder, or to OutageVisits while
   * Redis is unreachable; call it once the answer is written. `parameters`: the link's, whose UTM
   * values count when the query has none.
   */
  record(
    req: IncomingMessage,
    linkId: number,
    userId: number,
    parameters?: ReadonlyArray<{ name: string; value: string }> | null,
  ): void {
    try {
      // not counted (HEAD, no user agent): nothing to read, not even the address; the recorder
      // tells bots apart (memoised per visitor)
      const method = req.method as string;
      const userAgent = req.headers['user-agent'];
      if (!userAgent || !countableMethod(method)) return;
      // the query only when it may name UTM values, cut like headers: the recorder's visitor
      // memo keeps it (at most MAX_HEADER_CHARS per remembered visitor)
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const query =
        q >= 0 && url.includes('utm_', q) ? url.slice(q + 1, q + 1 + MAX_HEADER_CHARS) : undefined;
      const visit = {
        linkId,
        userId,
        method,
        ip: this.clients.of(req),
        userAgent,
        referer: req.headers.referer,
        acceptLanguage: req.headers['accept-language'],
        query,
        parameters,
      };
      // Redis unreachable (the recorder would lose it), or no recorder yet: held until then
      if (this.outage.holding || !this.visits) this.outage.keep(visit);
      else this.visits.record(visit);
    } catch (err) {
      this.logger.warn(`visit not recorded: ${(err as Error).message}`);
    }
  }
}
