import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { LinkKind } from '@app/database';
import { CachedLink, isAliasShaped, isReservedAlias, ResolvedHost } from '@app/links';

/** What the redirector already knows about a request when it hands it to a registered route. */
export interface PublicRequestContext {
  /** The path without the query string, e.g. `/q/AbC123.png`. */
  path: string;
  /** Lower-cased Host without port ('' when absent or malformed). */
  host: string;
  /** The branded domain the Host names, or null for the main (PUBLIC_URL) host. */
  domain: ResolvedHost | null;
}

/**
 * A public route. It answers the request itself; a rejected promise (or a throw) becomes the
 * 500 / 503 page (PublicResponder.fail), so a route never has to catch everything itself.
 */
export type PublicRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: PublicRequestContext,
) => void | Promise<void>;

/**
 * The answer to a short code of another kind than a plain link (e.g. a bio page at
 * `/<alias>`): called with the code as the link cache resolved it, on its own host, for GET, HEAD
 * and POST. It answers itself (PublicResponder) and hands the visit to `PublicResponder.record`.
 */
export type ShortCodeRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  code: CachedLink,
  domain: ResolvedHost | null,
) => void | Promise<void>;

/**
 * Path prefixes that features serve through the public handler: each feature registers its own in
 * its module's `onModuleInit` (QR codes `/q/`, campaigns `/r/` and `/u/`), each declared in
 * PUBLIC_PREFIXES (@app/common). Only GET and HEAD reach a registered route; other methods get
 * 405. Any other path of two segments or more is unknown (404, or the branded domain's
 * redirect404).
 */
@Injectable()
export class PublicRoutes {
  private readonly routes = new Map<string, PublicRoute>();
  private readonly kinds = new Map<LinkKind, ShortCodeRoute>();
  /** Prefixes also served without their trailing slash (`/app`): a few at most, looked at in turn. */
  private readonly bares: Array<{ path: string; route: PublicRoute; post: boolean }> = [];

  /**
   * `prefix` is one path segment between slashes, e.g. `/q/`, declared in PUBLIC_PREFIXES
   * (@app/common): the alias rules reserve those (RESERVED_ALIASES), so that no short link is
   * shadowed by a route. A segment that could be an alias and is not reserved is refused.
   * `bare`: the route also answers the prefix without its trailing slash (`/app` as `/app/`);
   * `post`: that bare path also takes POST (a form posting to itself, `/report`).
   */
  register(
    prefix: string,
    route: PublicRoute,
    opts: { bare?: boolean; post?: boolean } = {},
  ): void {
    if (!/^\/[a-z0-9-]+\/$/.test(prefix))
      throw new Error(`public route prefix must look like /name/: ${prefix}`);
    const segment = prefix.slice(1, -1);
    if (isAliasShaped(segment) && !isReservedAlias(segment))
      throw new Error(
        `public route prefix ${prefix} would shadow an alias: add it to PUBLIC_PREFIXES`,
      );
    if (this.routes.has(prefix)) throw new Error(`public route ${prefix} is already registered`);
    this.routes.set(prefix, route);
    if (opts.bare) this.bares.push({ path: prefix.slice(0, -1), route, post: !!opts.post });
  }

  /** Serves the short codes of `kind` at `/<alias>` (plain links are the redirector's own). */
  registerKind(kind: Exclude<LinkKind, 'link'>, route: ShortCodeRoute): void {
    if (this.kinds.has(kind)) throw new Error(`short codes of kind ${kind} are already served`);
    this.kinds.set(kind, route);
  }

  /** The route serving short codes of `kind`, if any. */
  kind(kind: LinkKind): ShortCodeRoute | undefined {
    return this.kinds.get(kind);
  }

  /** The route registered with `bare` for `path` (`/app`), if any. */
  bare(path: string): PublicRoute | undefined {
    for (const b of this.bares) if (path === b.path) return b.route;
    return undefined;
  }

  /** Whether the bare `path` was registered with `post` (its form posts to it). */
  barePost(path: string): boolean {
    for (const b of this.bares) if (path === b.path) return b.post;
    return false;
  }

  /** The route whose prefix starts `path`, if any. */
  match(path: string): PublicRoute | undefined {
    const end = path.indexOf('/', 1);
    return end > 0 ? this.routes.get(path.slice(0, end + 1)) : undefined;
  }
}
