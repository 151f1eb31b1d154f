import { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The public side of the api (short links, QR links, rotators, list pages, branded domains) is
 * served by a lean handler in front of Express: the redirect must not pay for Express routing,
 * guards, pipes or interceptors. Nest keeps every path that `isNestPath` accepts.
 */
export abstract class PublicHandler {
  abstract handle(req: IncomingMessage, res: ServerResponse): void;
}

// The predicate lives in @app/common: the alias rules (links/alias.ts) refuse what it accepts.
export { isNestPath } from '@app/common';
