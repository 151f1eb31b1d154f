import { tracingChannel } from 'node:diagnostics_channel';

import { ExpressAdapter } from '@nestjs/platform-express';
import { NextFunction, Request, Response } from 'express';

import { WriterMark } from '../auth/writer-mark';
import { envelope } from './envelope';

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;
type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
/** An adapter's route method as Nest calls it: `(path, handler)`. */
type Register = (...args: unknown[]) => unknown;

/** A layer of Express's router stack (what the table needs of it). */
interface Layer {
  route?: object;
}

/** On a request the route table dispatched: the route, so that Express does not run it again. */
const DISPATCHED = Symbol('route-table');

/** Express's router publishes its handler calls here; with a subscriber the table stands aside. */
const ROUTER_TRACING = tracingChannel('express.router.request');

/** A path of literal segments only: Express matches it as such, in any case, one `/` optional at the end. */
const STATIC_PATH = /^(\/[A-Za-z0-9._~-]+)+\/?$|^\/$/;

/** `/API/url/add/` → `/api/url/add` (what a static route's match ignores). */
function tableKey(method: string, path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return `${method} ${trimmed.toLowerCase()}`;
}

/**
 * Whether a route registered with `pattern` could answer `path` (a static path): false only
 * when a segment of literals differs or the segment count does; any other syntax (wildcards,
 * optional groups) could.
 */
function couldMatch(pattern: string, path: string): boolean {
  if (!/^[A-Za-z0-9._~/:-]*$/.test(pattern)) return true;
  const a = tableKey('', pattern).slice(1).split('/');
  const b = tableKey('', path).slice(1).split('/');
  return a.length === b.length && a.every((s, i) => s.startsWith(':') || s === b[i]);
}

/** One run of static routes with nothing but routes between the table's layer and theirs. */
interface RouteTable {
  layer: Layer;
  handlers: Map<string, { route: object; handler: Handler }>;
}

/**
 * Nest's Express adapter with the api's success answer and a route table:
 *
 * - every result a handler returns becomes the documented body (`envelope`) with HTTP 200 (the
 *   spec's rule for every success, creations included: no per-route @HttpCode), after the
 *   replicas' writer mark (WriterMark). A handler that answers itself (`@Res()`: a redirect, a
 *   CSV stream) is not replied for by Nest. Done here, where Nest hands the result over, rather
 *   than in a global interceptor: with any interceptor Nest turns every request into Observables
 *   (an AsyncResource per interceptor and one more, deferred and merged Observables, a
 *   ReplaySubject, a watch on the socket's `close`), which cost a link creation more than its
 *   validation (docs/performance.md, "Link creation");
 * - routes of a literal path (`POST /api/url/add`, most of the api) are found by one map lookup
 *   instead of Express trying the pattern of every route registered before them (~60 for a link
 *   creation). The table is a layer of Express's router, placed where the first of its routes
 *   was, so the middleware in front (CORS, rate limit, JSON body) runs as before; a route goes in
 *   only when no route before it could answer the same method and path. Everything stays
 *   registered with Express too: what the table does not answer (HEAD, OPTIONS, a path with
 *   parameters, a method without a route there) is routed by Express as before, and a handler
 *   that passes the request on (`next()`) is followed by the routes after it, as in Express.
 */
export class ApiHttpAdapter extends ExpressAdapter {
  private marks?: WriterMark;
  private table?: RouteTable;
  /** Routes registered so far that the table does not hold, with the method they answer. */
  private readonly others: Array<{ method: string; path: string }> = [];

  /** The writer mark, once the application that provides it is built (createApi). */
  useWriterMark(marks: WriterMark): void {
    this.marks = marks;
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const mark = this.marks?.before(response.req as Request);
    if (mark) return mark.then(() => this.answer(response, body, statusCode));
    return this.answer(response, body, statusCode);
  }

  private answer(response: Response, body: unknown, statusCode?: number): unknown {
    // Nest set 201 for a POST before the handler ran
    if (!response.headersSent) response.status(200);
    return super.reply(response, envelope(body), statusCode);
  }

  override get(...args: unknown[]): unknown {
    return this.route('GET', args, () => (super.get as Register).apply(this, args));
  }

  override post(...args: unknown[]): unknown {
    return this.route('POST', args, () => (super.post as Register).apply(this, args));
  }

  override put(...args: unknown[]): unknown {
    return this.route('PUT', args, () => (super.put as Register).apply(this, args));
  }

  override delete(...args: unknown[]): unknown {
    return this.route('DELETE', args, () => (super.delete as Register).apply(this, args));
  }

  override patch(...args: unknown[]): unknown {
    return this.route('PATCH', args, () => (super.patch as Register).apply(this, args));
  }

  override all(...args: unknown[]): unknown {
    this.others.push({ method: '*', path: typeof args[0] === 'string' ? args[0] : '*' });
    return (super.all as Register).apply(this, args);
  }

  /** Registers a route with Express, and in the table when its path is literal and unshadowed. */
  private route(method: RouteMethod, args: unknown[], register: () => unknown): unknown {
    const [path, handler] = args;
    if (typeof path !== 'string' || typeof handler !== 'function' || args.length !== 2) {
      // a pattern the table cannot read (a RegExp, several handlers) may answer anything
      this.others.push({ method, path: '*' });
      return register();
    }
    const key = tableKey(method, path);
    const shadowed = this.others.some(
      (o) => (o.method === method || o.method === '*') && couldMatch(o.path, path),
    );
    if (!STATIC_PATH.test(path) || shadowed) {
      this.others.push({ method, path });
      return register();
    }
    const stack = (this.instance.router as { stack: Layer[] }).stack;
    const table = this.tableBefore(stack);
    // the route Express makes for it (known once registered)
    const entry = { route: {} as object, handler: handler as Handler };
    // Express runs it unless the table did (a handler's next() goes on to the routes after it)
    args[1] = (req: Request, res: Response, next: NextFunction) =>
      (req as unknown as Record<symbol, unknown>)[DISPATCHED] === entry.route
        ? next()
        : entry.handler(req, res, next);
    const registered = register();
    entry.route = stack[stack.length - 1].route as object;
    if (!table.handlers.has(key)) table.handlers.set(key, entry);
    return registered;
  }

  /** The table a route about to be added goes in: the last one, unless a non-route layer followed it. */
  private tableBefore(stack: Layer[]): RouteTable {
    const current = this.table;
    if (current) {
      const at = stack.lastIndexOf(current.layer);
      if (at >= 0 && stack.slice(at + 1).every((l) => l.route)) return current;
    }
    const handlers: RouteTable['handlers'] = new Map();
    this.instance.use((req: Request, res: Response, next: NextFunction) => {
      const method = req.method;
      if (method === 'HEAD' || method === 'OPTIONS') return next();
      const url = req.url;
      const query = url.indexOf('?');
      const found = handlers.get(tableKey(method, query < 0 ? url : url.slice(0, query)));
      if (!found || ROUTER_TRACING.hasSubscribers) return next();
      // what Express's router sets when a route matches
      req.route = found.route;
      req.params = Object.create(null);
      (req as unknown as Record<symbol, unknown>)[DISPATCHED] = found.route;
      try {
        const result = found.handler(req, res, next) as Promise<unknown> | undefined;
        if (result && typeof result.then === 'function')
          result.then(undefined, (err: unknown) => next(err || new Error('Rejected promise')));
      } catch (err) {
        next(err);
      }
    });
    this.table = { layer: stack[stack.length - 1], handlers };
    return this.table;
  }
}
