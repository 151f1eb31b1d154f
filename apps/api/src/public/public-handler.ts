import { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The public side of the api (short links, QR links, rotators, list pages, branded domains) is
 * served by a lean handler in front of Express: the redirect must not pay for Express routing,
 * guards, pipes or interceptors. Nest keeps every path that `isNestPath` accepts.
 */
export abstract class PublicHandler {
  abstract handle(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * Paths served by the Nest (Express) app: `/api`, `/api/…`, `/auth/…`, `/health…` and `/docs…`;
 * everything else goes to the PublicHandler. Every request passes here, so the second character
 * picks the one prefix to compare (no closure, no loop over the prefixes).
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
