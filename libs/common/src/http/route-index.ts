import { Injectable } from '@nestjs/common';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Route {
  /** `/api/url/:id/delete`: the form a message names. */
  form: string;
  segments: string[];
  methods: Set<string>;
}

/** What a request no route answers is told: 405 with `Allow` when its path has other methods, and the routes it may have meant. */
export interface RouteMiss {
  status: 404 | 405;
  message: string;
  allow?: string;
}

const isParam = (segment: string) => /^\{\w+\}$/.test(segment);
const split = (path: string) => path.split('/').filter(Boolean);

/**
 * The api's routes as the OpenAPI document lists them (loaded once at start by createApi), so
 * that a request no route answers says what does: `DELETE /api/url/2` is a 405 naming the
 * methods of `/api/url/:id` (`Allow`) and the route it probably meant, `DELETE /api/url/:id/delete`.
 * Only consulted on that rare path.
 */
@Injectable()
export class RouteIndex {
  private routes: Route[] = [];

  load(paths: Record<string, object>): void {
    this.routes = Object.entries(paths).map(([template, item]) => ({
      form: template.replace(/\{(\w+)\}/g, ':$1'),
      segments: split(template),
      methods: new Set(
        METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => m.toUpperCase()),
      ),
    }));
  }

  /** The answer to `method path` when no route matched it. */
  miss(method: string, path: string): RouteMiss {
    const asked = split(path);
    const startsWithAsked = (route: Route) =>
      asked.every((s, i) => isParam(route.segments[i]) || route.segments[i] === s);
    const params = (route: Route) => route.segments.filter(isParam).length;
    // the path's own routes, the most literal first (as /api/user/login/{id} before /api/user/{id})
    const here = this.routes
      .filter((r) => r.segments.length === asked.length && startsWithAsked(r))
      .sort((a, b) => params(a) - params(b));
    const verb = method.toUpperCase();
    // the same method one segment further: DELETE /api/url/2 → DELETE /api/url/:id/delete
    const meant = this.routes
      .filter(
        (r) => r.methods.has(verb) && r.segments.length === asked.length + 1 && startsWithAsked(r),
      )
      .slice(0, 3)
      .map((r) => `${verb} ${r.form}`);
    const use = meant.length ? `; use ${meant.join(' or ')}` : '';
    const methods = [...new Set(here.flatMap((r) => [...r.methods]))];
    if (!methods.length || methods.includes(verb))
      return { status: 404, message: `Route not found${use.replace(/^;/, ':')}` };
    if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
    const allow = methods.join(', ');
    return {
      status: 405,
      message: `Method not allowed: ${here[0].form} answers ${allow}${use}`,
      allow,
    };
  }
}
