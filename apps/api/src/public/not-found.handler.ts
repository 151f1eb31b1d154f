import { IncomingMessage, ServerResponse } from 'node:http';

import { PublicHandler } from './public-handler';

/** Answers every public path with 404 (the redirector module replaces this handler). */
export class NotFoundPublicHandler extends PublicHandler {
  handle(_req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 1, message: 'Not found' }));
  }
}
