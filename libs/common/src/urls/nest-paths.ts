/**
 * The first path segments of what Nest serves (`isNestPath`): `/api` and `/api/…` (the API),
 * `/auth/…` (login links), and every path starting `/health` (HealthController) or `/docs`
 * (Swagger UI and `/docs-json`). None of them may be an alias (RESERVED_ALIASES is derived from
 * them); a spec ties this list to isNestPath and to the routes the api's controllers declare.
 */
export const NEST_ROOTS = ['api', 'auth', 'health', 'docs'] as const;

/**
 * The path prefixes the public side serves besides `/<alias>`: QR codes `/q/`, campaign rotators
 * `/r/`, list pages `/u/`, the dashboard `/app/` (also `/app`) and the on-demand TLS check `/tls/`. Each is registered by its feature's module (PublicRoutes.register),
 * and none may be an alias (RESERVED_ALIASES is derived from them); a spec ties this list to the
 * registrations.
 */
export const PUBLIC_PREFIXES = ['/q/', '/r/', '/u/', '/app/', '/tls/', '/report/'] as const;

/**
 * Paths served by the Nest (Express) app: `/api`, `/api/…`, `/auth/…`, `/health…` and `/docs…`;
 * everything else goes to the PublicHandler (apps/api/src/http-front.ts). An alias `a` for which
 * `isNestPath('/' + a)` holds would never be served as a short link (`health2`, `docs1`), so the
 * alias rules refuse it. Every request passes here, so the second character picks the one prefix
 * to compare (no closure, no loop over the prefixes).
 */
export function isNestPath(url: string | undefined): boolean {
  if (url === undefined || url.length < 4) return false;
  switch (url.charCodeAt(1)) {
    case 97: // a
      return url === '/api' || url.startsWith('/api/') || url.startsWith('/auth/');
    case 104: // h
      return url.startsWith('/health');
    case 100: // d
      return url.startsWith('/docs');
    default:
      return false;
  }
}
