import { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The public side of the api (short links, QR links, rotators, list pages, branded domains) is
 * served by a lean handler in front of Express: the redirect must not pay for Express routing,
 * guards, pipes or interceptors. Nest keeps every path that `isNestPath` accepts.
 */
export abstract class PublicHandler {
  abstract handle(req: IncomingMessage, res: ServerResponse): void;
}

const NEST_PREFIXES = ['/api/', '/auth/', '/health', '/docs'];

/** Paths served by the Nest (Express) app; everything else goes to the PublicHandler. */
export function isNestPath(url: string | undefined): boolean {
  const path = url ?? '/';
  if (path === '/api') return true;
  return NEST_PREFIXES.some((p) => path.startsWith(p));
}
