import { Injectable, NestMiddleware } from '@nestjs/common';
import { json } from 'express';
import { NextFunction, Request, Response } from 'express';

import { AppError } from './errors';

export const MAX_BODY = '1mb';

const parse = json({ limit: MAX_BODY, strict: false, type: () => true });

/** Deeper than any documented body (a bulk item's targeting rules are 4 levels down). */
export const MAX_JSON_DEPTH = 32;

/** A UTF-16 surrogate without its pair (`"\ud800"` parses, but is no text a database can store). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * What is wrong with a parsed body that no DTO can be trusted to handle, naming the field: nesting
 * deeper than MAX_JSON_DEPTH (class-transformer recurses over it and overflows the stack), or a
 * string or key with a lone surrogate (validators throw on it). Walked without recursion, so a
 * body of a million brackets costs a loop, not a stack.
 */
export function jsonBodyProblem(body: unknown): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: body, path: '', depth: 0 },
  ];
  while (stack.length) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value))
        return `${path || 'body'}: must be valid Unicode text (lone UTF-16 surrogate)`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH)
      return `${path.split(/[.[]/)[0] || 'body'}: nested deeper than ${MAX_JSON_DEPTH} levels`;
    if (Array.isArray(value)) {
      value.forEach((item, i) =>
        stack.push({ value: item, path: fieldPath(path, i), depth: depth + 1 }),
      );
    } else {
      for (const [key, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key))
          return `${fieldPath(path, key.replace(LONE_SURROGATE, '\uFFFD'))}: field names must be valid Unicode text`;
        stack.push({ value: item, path: fieldPath(path, key), depth: depth + 1 });
      }
    }
  }
  return null;
}

/**
 * Parses every request body as JSON (the API speaks nothing else) after the rate limiter, and
 * turns parser failures into envelope errors: 400 malformed, 413 too large, 415 bad encoding.
 * A body that parses but is not a JSON object, nests too deeply or holds a lone surrogate is a 400
 * naming the field. A `text/csv` body is left unread, for the handler that streams it (imports);
 * elsewhere it counts as an empty body.
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
      const problem = hasBody ? jsonBodyProblem(req.body) : null;
      if (problem) return next(new AppError(400, problem));
      if (req.body === undefined || req.body === null || typeof req.body !== 'object')
        req.body = {};
      next();
    });
  }
}
