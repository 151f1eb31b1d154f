import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { parseHost, PublicUrls } from '@app/common';
import {
  Blocklist,
  CachedLink,
  headerSafeUrl,
  isAliasShaped,
  redirectHeaders,
  ResolvedHost,
  screenHost,
  screenLink,
} from '@app/links';
import { AgentInfo, isCountable } from '@app/stats';

import { LinkCache } from '../link-cache/link-cache';
import { LinkSnapshot } from '../permanence/link-snapshot';
import { ClickLimiter } from './click-limiter';
import { LinkRoute, LinkRouter } from './link-router';
import { MissBudget } from './miss-budget';
import { forwardPage, framePage, Page, splashPage } from './pages';
import { PasswordGate } from './password-gate';
import { PublicHandler } from './public-handler';
import { PublicRoutes } from './public-routes';
import { PublicResponder, STATIC } from './responder';

/**
 * The public side of the api on node:http, without Express: reads the Host (the main host or a
 * branded domain) and the path, and dispatches:
 * - `/` → the docs (main host) or the branded domain's redirectroot (the 451 page when blocked);
 * - `/<alias>` → the short link: a 302, or the page it needs (password, pixels, splash, frame,
 *   overlay), then the visit is handed to the recorder;
 * - `/<prefix>/…` → the route a feature registered (QR codes `/q/`, campaigns `/r/` and `/u/`);
 * - anything else → 404 (or the branded domain's redirect404, the 451 page when blocked).
 *
 * A link in the in-process cache is answered synchronously (no promise, 302 headers built once per
 * link); a miss goes to Redis, then Postgres. Nothing escapes: failures become the 503 page when
 * Postgres or Redis is down, the 500 page otherwise, and are logged (PublicResponder.fail).
 * When both are down, short codes and branded domains are answered from the worker's link
 * snapshot instead (LinkSnapshot: asked only once a lookup has failed; docs/link-permanence.md).
 */
@Injectable()
export class RedirectorHandler extends PublicHandler {
  /** PublicUrls.host, held here: read on every request. */
  private readonly publicHost: string;
  private readonly docsHeaders = redirectHeaders('/docs');
  /** Raw Host header → parsed host: a handful of distinct values in practice (bounded). */
  private readonly hostMemo = new Map<string, string>();

  constructor(
    private readonly cache: LinkCache,
    private readonly routes: PublicRoutes,
    private readonly respond: PublicResponder,
    private readonly passwords: PasswordGate,
    private readonly router: LinkRouter,
    private readonly limiter: ClickLimiter,
    private readonly blocklist: Blocklist,
    private readonly misses: MissBudget,
    private readonly snapshot: LinkSnapshot,
    urls: PublicUrls,
  ) {
    super();
    this.publicHost = urls.host;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      const method = req.method;
      if (method !== 'GET' && method !== 'HEAD' && method !== 'POST')
        return this.respond.methodNotAllowed(res);
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const host = this.hostOf(req.headers.host);
      // the main host, and any host that is no branded domain, serve the PUBLIC_URL links
      if (host === this.publicHost || host === '') return this.route(req, res, path, host, null);
      const domain = this.cache.peekHost(host);
      if (domain !== undefined) return this.route(req, res, path, host, serving(domain));
      if (this.snapshot.outage)
        return this.route(req, res, path, host, serving(this.snapshotHost(host)));
      this.cache.resolveHost(host).then(
        (d) => this.route(req, res, path, host, serving(d)),
        (err) =>
          this.snapshot.covers(err)
            ? this.route(req, res, path, host, serving(this.snapshotHost(host)))
            : this.respond.fail(res, err),
      );
    } catch (err) {
      this.respond.fail(res, err);
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
      // a branded domain's redirects blocked since it was cached answer the 451 page
      if (domain && domain.screenedAt !== this.blocklist.generation)
        screenHost(this.blocklist, domain);
      if (path === '/') {
        if (method === 'POST') return this.respond.methodNotAllowed(res);
        if (!domain) {
          res.writeHead(302, this.docsHeaders);
          return void res.end();
        }
        if (!domain.redirectRoot) return this.respond.notFound(res);
        return domain.rootBlocked
          ? this.respond.sendStatic(res, 451, STATIC.disabled)
          : this.respond.redirect(res, domain.redirectRoot);
      }
      if (path.indexOf('/', 1) > 0) {
        if (method === 'POST') return this.respond.methodNotAllowed(res);
        const route = this.routes.match(path);
        if (!route) return this.respond.notFound(res, domain);
        const result = route(req, res, { path, host, domain });
        if (result) result.catch((err) => this.respond.fail(res, err));
        return;
      }
      const bare = this.routes.bare(path);
      if (bare !== undefined) {
        if (method === 'POST' && !this.routes.barePost(path))
          return this.respond.methodNotAllowed(res);
        const result = bare(req, res, { path, host, domain });
        if (result) result.catch((err) => this.respond.fail(res, err));
        return;
      }
      const alias = path.slice(1);
      if (!isAliasShaped(alias)) return this.respond.notFound(res, domain);
      if (this.misses.exhausted(req))
        return this.respond.sendStatic(res, 429, STATIC.tooManyMisses);
      const link = this.cache.peek(alias);
      if (link !== undefined) return this.serve(req, res, link, domain);
      if (this.snapshot.outage) return this.fromSnapshot(req, res, alias, domain);
      this.cache.resolve(alias).then(
        (l) => this.serve(req, res, l, domain),
        (err) =>
          this.snapshot.covers(err)
            ? this.fromSnapshot(req, res, alias, domain)
            : this.respond.fail(res, err),
      );
    } catch (err) {
      this.respond.fail(res, err);
    }
  }

  private serve(
    req: IncomingMessage,
    res: ServerResponse,
    link: CachedLink | null,
    domain: ResolvedHost | null,
  ): void {
    // a short code answers on its own host only
    if (!link || link.domainId !== (domain ? domain.id : null)) {
      this.misses.miss(req);
      return this.respond.notFound(res, domain);
    }
    if (link.kind !== 'link') return this.other(req, res, link, domain);
    if (link.screenedAt !== this.blocklist.generation) screenLink(this.blocklist, link);
    if (link.disabled || link.blocked) return this.respond.sendStatic(res, 451, STATIC.disabled);
    if (link.flagged) return this.respond.sendStatic(res, 451, STATIC.flagged);
    if (link.expiresAt !== null && link.expiresAt <= Date.now()) return this.expired(res, link);
    if (req.method === 'POST') {
      if (!link.protected) return this.respond.methodNotAllowed(res);
      return void this.passwords
        .unlock(req, res, link, () => this.deliver(req, res, link))
        .catch((err) => this.respond.fail(res, err));
    }
    if (link.protected) return this.passwords.ask(res);
    this.deliver(req, res, link);
  }

  /**
   * Postgres and Redis are both unreachable: the short code as the snapshot has it, served as
   * usual (serve), its blocklist and click-limit state as of the snapshot kept (blocked stays
   * blocked even if this process's list could not load; used up stays used up). An alias the
   * snapshot does not hold may be newer than it: the 503 page, not a 404.
   */
  private fromSnapshot(
    req: IncomingMessage,
    res: ServerResponse,
    alias: string,
    domain: ResolvedHost | null,
  ): void {
    try {
      const entry = this.snapshot.link(alias);
      if (!entry) return this.respond.sendStatic(res, 503, STATIC.unavailable);
      const link = entry.link;
      if (link.screenedAt !== this.blocklist.generation) {
        screenLink(this.blocklist, link);
        if (entry.blocked) link.blocked = true;
      }
      if (link.clickLimit !== null && entry.clicks >= link.clickLimit)
        this.router.route(link).usedUp = true;
      this.serve(req, res, link, domain);
    } catch (err) {
      this.respond.fail(res, err);
    }
  }

  /** A branded domain as the snapshot has it (its redirects' blocklist state as of the snapshot kept). */
  private snapshotHost(host: string): ResolvedHost | null {
    const found = this.snapshot.domain(host);
    if (!found) return null;
    const domain = found.host;
    if (domain.screenedAt !== this.blocklist.generation) {
      screenHost(this.blocklist, domain);
      if (found.rootBlocked) domain.rootBlocked = true;
      if (found.notFoundBlocked) domain.notFoundBlocked = true;
    }
    return domain;
  }

  /** A short code of another kind: its feature's route (bio pages), else unknown (QR codes live at /q/). */
  private other(
    req: IncomingMessage,
    res: ServerResponse,
    code: CachedLink,
    domain: ResolvedHost | null,
  ): void {
    const route = this.routes.kind(code.kind);
    if (!route) return this.respond.notFound(res, domain);
    const result = route(req, res, code, domain);
    if (result) result.catch((err) => this.respond.fail(res, err));
  }

  /** An expired or used-up link: its expiration redirect, else the 410 page. */
  private expired(res: ServerResponse, link: CachedLink): void {
    if (link.expirationRedirect)
      return this.respond.redirect(res, link.expirationRedirect, 'no-store');
    this.respond.sendStatic(res, 410, STATIC.gone);
  }

  /**
   * The visit itself. A plain link: its prebuilt 302. Otherwise its compiled route (LinkRouter):
   * the preview page for link-preview fetchers, the click limit, the visitor's destination, then
   * the 302 or the page that fires pixels / shows the splash, frame or overlay.
   */
  private deliver(req: IncomingMessage, res: ServerResponse, link: CachedLink): void {
    if (link.redirectHeaders) {
      res.writeHead(302, link.redirectHeaders);
      res.end();
      return this.respond.record(req, link.id, link.userId, link.parameters);
    }
    const route = this.router.route(link);
    if (route.clickLimit !== null) return this.limited(req, res, link, route, route.clickLimit);
    const agent = this.router.agent(route, req);
    if (route.preview && agent?.bot) return this.preview(req, res, link, route.preview);
    this.forward(req, res, link, route, agent);
  }

  /**
   * A link with a click limit: every request asks the shared counter first, whatever it is
   * (browser, HEAD, bot, preview fetcher, no user agent; only countable visits use the limit
   * up), so once the limit is reached they all get the used-up answer, and a preview fetcher
   * never sees the destination of a used-up link. A used-up link stays so in this process (a
   * field of its compiled route; a change of the link compiles a new one): no Redis call.
   */
  private limited(
    req: IncomingMessage,
    res: ServerResponse,
    link: CachedLink,
    route: LinkRoute,
    limit: number,
  ): void {
    if (route.usedUp) return this.expired(res, link);
    const agent = this.router.agent(route, req);
    const counts = isCountable(req.method as string, req.headers['user-agent']);
    this.limiter.take(link.id, limit, counts).then(
      (ok) => {
        if (!ok) {
          route.usedUp = true;
          return this.expired(res, link);
        }
        if (route.preview && agent?.bot) return this.preview(req, res, link, route.preview);
        this.forward(req, res, link, route, agent);
      },
      (err) => this.respond.fail(res, err),
    );
  }

  /** The page of preview tags that link-preview fetchers get. */
  private preview(req: IncomingMessage, res: ServerResponse, link: CachedLink, page: Page): void {
    this.respond.sendPage(res, 200, page);
    this.respond.record(req, link.id, link.userId, link.parameters);
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    link: CachedLink,
    route: LinkRoute,
    agent: AgentInfo | null,
  ): void {
    const dest = this.router.choose(route, req, agent);
    const forwarded = this.router.forwarded(route, dest, req);
    if (link.type === 'direct' && !link.pixels.length) {
      if (forwarded) this.respond.redirect(res, forwarded, dest.cacheControl);
      else {
        res.writeHead(302, dest.headers);
        res.end();
      }
    } else {
      const target = headerSafeUrl(forwarded ?? dest.url);
      if (link.type === 'splash' && link.splash)
        this.respond.sendPage(res, 200, splashPage(target, link.splash, link.pixels));
      else if (link.type === 'frame' || (link.type === 'overlay' && link.overlay))
        this.respond.sendPage(
          res,
          200,
          framePage(target, link.type === 'overlay' ? link.overlay : null, link.pixels, link.title),
        );
      else if (link.pixels.length)
        this.respond.sendPage(res, 200, forwardPage(target, link.pixels));
      else this.respond.redirect(res, target);
    }
    this.respond.record(req, link.id, link.userId, link.parameters);
  }
}

/** A branded domain serves once its ownership is proven; until then its host is like any other. */
function serving(domain: ResolvedHost | null): ResolvedHost | null {
  return domain && domain.verified !== false ? domain : null;
}
