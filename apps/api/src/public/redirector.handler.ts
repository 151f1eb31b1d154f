import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { mapError } from '@app/common';
import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';
import { VisitRecorder } from '@app/stats';

import { ALIAS_PATTERN } from '../links/alias';
import { verifyPassword } from '../users/passwords';
import { clientIp, compileTrust, TrustFn } from './client-ip';
import { hostOfUrl, parseHost } from './host';
import { LinkCache } from './link-cache';
import {
  campaignListPage,
  forwardPage,
  framePage,
  Page,
  PAGES,
  passwordPage,
  splashPage,
} from './pages';
import { PublicHandler } from './public-handler';
import { PublicRequestContext, PublicRoutes } from './public-routes';
import { CachedLink, headerSafeUrl, REDIRECT_CACHE_CONTROL, ResolvedHost } from './resolved-link';

/** Largest password form accepted. */
const MAX_FORM_BYTES = 4096;
/** Wrong passwords per link and client address before a pause. */
const MAX_PASSWORD_FAILURES = 10;
const PASSWORD_WINDOW_SECONDS = 600;
/** Links shown on a campaign's list page. */
const MAX_LIST_LINKS = 500;

// prettier-ignore
const SECURITY_HEADERS = [
  'X-Content-Type-Options', 'nosniff',
  'Referrer-Policy', 'strict-origin-when-cross-origin',
  'X-Frame-Options', 'DENY',
];

/** A fixed page with its headers built once. */
interface StaticPage {
  body: Buffer;
  headers: string[];
}

function staticPage(page: Page, extra: string[] = []): StaticPage {
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

const NOT_FOUND = staticPage(PAGES.notFound);
const GONE = staticPage(PAGES.gone);
const METHOD_NOT_ALLOWED = staticPage(PAGES.methodNotAllowed, ['Allow', 'GET, HEAD']);
const BAD_FORM = staticPage(PAGES.badRequest, ['Connection', 'close']);
const TOO_LARGE = staticPage(PAGES.tooLarge, ['Connection', 'close']);
const TOO_MANY = staticPage(PAGES.tooManyAttempts, [
  'Retry-After',
  String(PASSWORD_WINDOW_SECONDS),
]);
const ERROR = staticPage(PAGES.error);
const UNAVAILABLE = staticPage(PAGES.unavailable, ['Retry-After', '5']);

const ROTATOR_PATH = /^\/r\/([a-z0-9-]{3,50})\/?$/;
const LIST_PATH = /^\/u\/([^/]*)-([0-9]{1,10})\/?$/;

/**
 * The public side of the api on node:http, without Express: short links (`/<alias>` on the main
 * host and on branded domains), campaign rotators (`/r/<slug>`), public campaign list pages
 * (`/u/<slug>-<id>`), and the routes other features register (`/q/` for QR codes).
 *
 * A plain link is answered from the in-process cache synchronously (no promise, headers built
 * once per link); a miss goes to Redis, then Postgres. The visit is handed to the VisitRecorder
 * after the response was written. Nothing escapes: failures become a 503 page when Postgres or
 * Redis is down, a 500 page otherwise, and are logged.
 */
@Injectable()
export class RedirectorHandler extends PublicHandler {
  private readonly logger = new Logger('Redirector');
  private readonly publicUrl: string;
  private readonly publicHost: string;
  private readonly trust: TrustFn;
  private readonly docsHeaders: string[];
  /** Raw Host header → parsed host: a handful of distinct values in practice (bounded). */
  private readonly hostMemo = new Map<string, string>();
  private fallbackRotation = 0;

  constructor(
    private readonly cache: LinkCache,
    private readonly routes: PublicRoutes,
    private readonly visits: VisitRecorder,
    private readonly redis: RedisService,
    @InjectDataSource() private readonly db: DataSource,
    config: AppConfig,
  ) {
    super();
    this.publicUrl = config.publicUrl;
    this.publicHost = hostOfUrl(config.publicUrl);
    this.trust = compileTrust(process.env.TRUST_PROXY);
    this.docsHeaders = [
      'Location',
      '/docs',
      'Cache-Control',
      REDIRECT_CACHE_CONTROL,
      'Content-Length',
      '0',
    ];
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      const method = req.method;
      if (method !== 'GET' && method !== 'HEAD' && method !== 'POST')
        return this.sendStatic(res, 405, METHOD_NOT_ALLOWED);
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const host = this.hostOf(req.headers.host);
      // the main host, and any host that is no branded domain, serve the PUBLIC_URL links
      if (host === this.publicHost || host === '') return this.route(req, res, path, host, null);
      const domain = this.cache.peekHost(host);
      if (domain !== undefined) return this.route(req, res, path, host, domain);
      this.cache.resolveHost(host).then(
        (d) => this.route(req, res, path, host, d),
        (err) => this.fail(res, err),
      );
    } catch (err) {
      this.fail(res, err);
    }
  }

  private hostOf(header: string | undefined): string {
    if (header === undefined) return '';
    let host = this.hostMemo.get(header);
    if (host === undefined) {
      host = parseHost(header);
      if (this.hostMemo.size >= 1000) this.hostMemo.clear();
      this.hostMemo.set(header, host);
    }
    return host;
  }

  private route(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    host: string,
    domain: ResolvedHost | null,
  ): void {
    try {
      const method = req.method as string;
      if (path === '/') {
        if (method === 'POST') return this.sendStatic(res, 405, METHOD_NOT_ALLOWED);
        if (!domain) return this.redirect(res, this.docsHeaders);
        return domain.redirectRoot
          ? this.redirectTo(res, domain.redirectRoot, REDIRECT_CACHE_CONTROL)
          : this.sendStatic(res, 404, NOT_FOUND);
      }
      if (path.indexOf('/', 1) > 0) {
        if (method === 'POST') return this.sendStatic(res, 405, METHOD_NOT_ALLOWED);
        return this.namespaced(req, res, { path, host, domainId: domain?.id ?? null }, domain);
      }
      const alias = path.slice(1);
      if (!ALIAS_PATTERN.test(alias)) return this.unknown(res, domain);
      const link = this.cache.peek(alias);
      if (link !== undefined) return this.serve(req, res, link, domain);
      this.cache.resolve(alias).then(
        (l) => this.serve(req, res, l, domain),
        (err) => this.fail(res, err),
      );
    } catch (err) {
      this.fail(res, err);
    }
  }

  /** `/<prefix>/…`: a registered route (QR codes), the rotator, a list page, else unknown. */
  private namespaced(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: PublicRequestContext,
    domain: ResolvedHost | null,
  ): void {
    const route = this.routes.match(ctx.path);
    if (route) {
      const result = route(req, res, ctx);
      if (result) result.catch((err) => this.fail(res, err));
      return;
    }
    if (!domain) {
      const rotator = ROTATOR_PATH.exec(ctx.path);
      if (rotator) return void this.rotate(res, rotator[1]).catch((err) => this.fail(res, err));
      const list = LIST_PATH.exec(ctx.path);
      if (list)
        return void this.listPage(res, list[1], Number(list[2])).catch((err) =>
          this.fail(res, err),
        );
    }
    this.unknown(res, domain);
  }

  private serve(
    req: IncomingMessage,
    res: ServerResponse,
    link: CachedLink | null,
    domain: ResolvedHost | null,
  ): void {
    // a link answers on its own host only; QR codes and bio pages have their own paths
    if (!link || link.kind !== 'link' || link.domainId !== (domain ? domain.id : null))
      return this.unknown(res, domain);
    if (link.expiresAt !== null && link.expiresAt <= Date.now())
      return this.sendStatic(res, 410, GONE);
    if (req.method === 'POST') {
      if (!link.protected) return this.sendStatic(res, 405, METHOD_NOT_ALLOWED);
      return void this.unlock(req, res, link).catch((err) => this.fail(res, err));
    }
    if (link.protected) return this.sendPage(res, 200, passwordPage(link.url, false));
    this.deliver(req, res, link);
  }

  /** The visit itself: the 302, or the page that fires pixels / shows the splash, frame or overlay. */
  private deliver(req: IncomingMessage, res: ServerResponse, link: CachedLink): void {
    if (link.redirectHeaders) {
      res.writeHead(302, link.redirectHeaders);
      res.end();
    } else {
      const target = headerSafeUrl(link.url);
      if (link.type === 'splash' && link.splash)
        this.sendPage(res, 200, splashPage(target, link.splash, link.pixels));
      else if (link.type === 'frame' || (link.type === 'overlay' && link.overlay))
        this.sendPage(
          res,
          200,
          framePage(target, link.type === 'overlay' ? link.overlay : null, link.pixels, link.title),
        );
      else if (link.pixels.length) this.sendPage(res, 200, forwardPage(target, link.pixels));
      else this.redirectTo(res, target, REDIRECT_CACHE_CONTROL);
    }
    this.record(req, link);
  }

  private record(req: IncomingMessage, link: CachedLink): void {
    try {
      this.visits.record({
        linkId: link.id,
        userId: link.userId,
        method: req.method as string,
        ip: clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trust),
        userAgent: req.headers['user-agent'],
        referer: req.headers.referer,
      });
    } catch (err) {
      this.logger.warn(`visit not recorded: ${(err as Error).message}`);
    }
  }

  /** `POST /<alias>` with the password form. */
  private async unlock(req: IncomingMessage, res: ServerResponse, link: CachedLink): Promise<void> {
    const form = await readForm(req, res);
    if (form === null) return;
    const password = form.get('password') ?? '';
    const ip = clientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trust);
    const attemptsKey = this.redis.key('pwfail', link.id, ip);
    if ((await this.failures(attemptsKey)) >= MAX_PASSWORD_FAILURES)
      return this.sendStatic(res, 429, TOO_MANY);
    const rows: Array<{ password_hash: string | null }> = await this.db.query(
      'SELECT password_hash FROM links WHERE id = $1',
      [link.id],
    );
    const hash = rows[0]?.password_hash;
    // a password removed in the meantime: the link is open
    const ok = hash
      ? password.length > 0 && password.length <= 128 && (await verifyPassword(hash, password))
      : rows.length > 0;
    if (!ok) {
      this.countFailure(attemptsKey);
      return this.sendPage(res, 401, passwordPage(link.url, true));
    }
    this.deliver(req, res, link);
  }

  private async failures(key: string): Promise<number> {
    if (!this.redis.ready) return 0;
    return Number(await this.redis.client.get(key).catch(() => 0)) || 0;
  }

  private countFailure(key: string): void {
    if (!this.redis.ready) return;
    this.redis.client
      .multi()
      .incr(key)
      .expire(key, PASSWORD_WINDOW_SECONDS)
      .exec()
      .catch(() => undefined);
  }

  /** `GET /r/<slug>`: the campaign's links in turn (by link id), through each link's short URL. */
  private async rotate(res: ServerResponse, slug: string): Promise<void> {
    const rows: Array<{ campaign_id: number; alias: string; domain: string | null }> =
      await this.db.query(
        `SELECT c.id AS campaign_id, l.alias, d.domain
       FROM campaigns c
       JOIN links l ON l.campaign_id = c.id AND l.kind = 'link' AND (l.expires_at IS NULL OR l.expires_at > now())
       LEFT JOIN domains d ON d.id = l.domain_id
       WHERE c.slug = $1
       ORDER BY l.id`,
        [slug],
      );
    if (!rows.length) return this.sendStatic(res, 404, NOT_FOUND);
    const turn = await this.nextTurn(rows[0].campaign_id);
    const pick = rows[turn % rows.length];
    this.redirectTo(res, `${baseOf(pick.domain, this.publicUrl)}/${pick.alias}`, 'no-store');
  }

  /** A shared counter in Redis, so replicas rotate together; a local one while Redis is down. */
  private async nextTurn(campaignId: number): Promise<number> {
    if (this.redis.ready) {
      try {
        return (await this.redis.client.incr(this.redis.key('rotator', campaignId))) - 1;
      } catch (err) {
        this.logger.warn(`rotator counter unavailable: ${(err as Error).message}`);
      }
    }
    return this.fallbackRotation++;
  }

  /** `GET /u/<slug or name>-<id>`: a public campaign's links; private or unknown campaigns are a 404. */
  private async listPage(res: ServerResponse, prefix: string, id: number): Promise<void> {
    if (id < 1 || id > 2147483647) return this.sendStatic(res, 404, NOT_FOUND);
    const campaigns: Array<{ name: string; slug: string | null }> = await this.db.query(
      'SELECT name, slug FROM campaigns WHERE id = $1 AND public',
      [id],
    );
    const campaign = campaigns[0];
    // with a slug, the list URL carries it; without, the name part is decoration
    if (!campaign || (campaign.slug && campaign.slug !== prefix))
      return this.sendStatic(res, 404, NOT_FOUND);
    const links: Array<{ alias: string; title: string; domain: string | null }> =
      await this.db.query(
        `SELECT l.alias, l.title, d.domain
       FROM links l LEFT JOIN domains d ON d.id = l.domain_id
       WHERE l.campaign_id = $1 AND l.kind = 'link' AND (l.expires_at IS NULL OR l.expires_at > now())
       ORDER BY l.id DESC LIMIT ${MAX_LIST_LINKS}`,
        [id],
      );
    const items = links.map((l) => ({
      title: l.title,
      shorturl: `${baseOf(l.domain, this.publicUrl)}/${l.alias}`,
    }));
    this.sendPage(res, 200, campaignListPage(campaign.name, items), 'no-cache');
  }

  /** Unknown alias or path: the branded domain's redirect404, else the 404 page. */
  private unknown(res: ServerResponse, domain: ResolvedHost | null): void {
    if (domain?.redirect404) return this.redirectTo(res, domain.redirect404, 'no-store');
    this.sendStatic(res, 404, NOT_FOUND);
  }

  private redirect(res: ServerResponse, headers: string[]): void {
    res.writeHead(302, headers);
    res.end();
  }

  private redirectTo(res: ServerResponse, location: string, cacheControl: string): void {
    res.writeHead(302, [
      'Location',
      headerSafeUrl(location),
      'Cache-Control',
      cacheControl,
      'Content-Length',
      '0',
    ]);
    res.end();
  }

  private sendStatic(res: ServerResponse, status: number, page: StaticPage): void {
    res.writeHead(status, page.headers);
    res.end(page.body);
  }

  private sendPage(
    res: ServerResponse,
    status: number,
    page: Page,
    cacheControl = 'no-store',
  ): void {
    const body = Buffer.from(page.html, 'utf8');
    // prettier-ignore
    res.writeHead(status, [
      'Content-Type', 'text/html; charset=utf-8',
      'Content-Length', String(body.length),
      'Content-Security-Policy', page.csp,
      'Cache-Control', cacheControl,
      ...SECURITY_HEADERS,
    ]);
    res.end(body);
  }

  /** Never throws: 503 page when a dependency is down, 500 otherwise; always logged. */
  private fail(res: ServerResponse, err: unknown): void {
    const { status } = mapError(err);
    const unavailable = status === 503;
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
      this.sendStatic(res, unavailable ? 503 : 500, unavailable ? UNAVAILABLE : ERROR);
    } catch {
      res.destroy();
    }
  }
}

/** `http(s)://host` of a branded domain, or PUBLIC_URL. */
function baseOf(domain: string | null, publicUrl: string): string {
  return domain ? domain.replace(/\/+$/, '') : publicUrl;
}

/**
 * Reads an `application/x-www-form-urlencoded` body of at most MAX_FORM_BYTES. Answers 413 / 400
 * itself and resolves null when the body is refused.
 */
function readForm(req: IncomingMessage, res: ServerResponse): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    const refuse = (page: StaticPage, status: number) => {
      // stop reading what is left of the body: the connection closes once the answer is out
      res.once('finish', () => req.destroy());
      res.writeHead(status, page.headers);
      res.end(page.body);
      resolve(null);
    };
    if (type !== 'application/x-www-form-urlencoded') return refuse(BAD_FORM, 400);
    if (Number(req.headers['content-length'] ?? 0) > MAX_FORM_BYTES) return refuse(TOO_LARGE, 413);
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        done = true;
        return refuse(TOO_LARGE, 413);
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    });
    req.on('error', (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}
