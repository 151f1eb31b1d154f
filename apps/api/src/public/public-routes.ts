import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

/** What the redirector already knows about a request when it hands it to a registered route. */
export interface PublicRequestContext {
  /** The path without the query string, e.g. `/q/AbC123.png`. */
  path: string;
  /** Lower-cased Host without port ('' when absent or malformed). */
  host: string;
  /** The branded domain the Host names, or null for the main (PUBLIC_URL) host. */
  domainId: number | null;
}

/**
 * A public route. It answers the request itself; a rejected promise (or a throw) becomes the
 * redirector's 500 / 503 page, so a route never has to catch everything itself.
 */
export type PublicRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: PublicRequestContext,
) => void | Promise<void>;

/**
 * Path prefixes served by other features through the redirector (e.g. the QR module registers
 * `/q/` in its `onModuleInit`). Only GET and HEAD reach a registered route; other methods get 405.
 * A prefix with no route registered answers 404.
 */
@Injectable()
export class PublicRoutes {
  private readonly routes = new Map<string, PublicRoute>();

  /** `prefix` is one path segment between slashes, e.g. `/q/`; `/r/` and `/u/` belong to the redirector. */
  register(prefix: string, route: PublicRoute): void {
    if (prefix === '/r/' || prefix === '/u/')
      throw new Error(`public route ${prefix} is the redirector's own`);
    if (!/^\/[a-z0-9-]+\/$/.test(prefix))
      throw new Error(`public route prefix must look like /name/: ${prefix}`);
    if (this.routes.has(prefix)) throw new Error(`public route ${prefix} is already registered`);
    this.routes.set(prefix, route);
  }

  /** The route whose prefix starts `path`, if any. */
  match(path: string): PublicRoute | undefined {
    if (this.routes.size === 0) return undefined;
    for (const [prefix, route] of this.routes) if (path.startsWith(prefix)) return route;
    return undefined;
  }
}
