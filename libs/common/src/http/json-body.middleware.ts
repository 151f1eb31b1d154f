import { Injectable, NestMiddleware } from '@nestjs/common';
import { json } from 'express';
import { NextFunction, Request, Response } from 'express';

import { AppError } from './errors';

export const MAX_BODY = '1mb';

const parse = json({ limit: MAX_BODY, strict: false, type: () => true });

/**
 * Parses every request body as JSON (the API speaks nothing else) after the rate limiter, and
 * turns parser failures into envelope errors: 400 malformed, 413 too large, 415 bad encoding.
 * A body that parses but is not a JSON object is a 400. A `text/csv` body is left unread, for
 * the handler that streams it (imports); elsewhere it counts as an empty body.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    // CSV uploads (POST /api/import) are streamed by their handler, not parsed here
    if (/^text\/csv\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
      req.body = {};
      return next();
    }
    parse(req, res, (err?: { type?: string; status?: number }) => {
      if (err) {
        if (err.type === 'entity.too.large')
          return next(new AppError(413, 'Request body is larger than 1 MB'));
        if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported')
          return next(new AppError(415, 'Request body must be UTF-8 JSON'));
        return next(new AppError(400, 'Malformed JSON in request body'));
      }
      const hasBody =
        req.body !== undefined &&
        (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding']);
      if (
        hasBody &&
        (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body))
      ) {
        return next(new AppError(400, 'Request body must be a JSON object'));
      }
      if (req.body === undefined || req.body === null || typeof req.body !== 'object')
        req.body = {};
      next();
    });
  }
}
