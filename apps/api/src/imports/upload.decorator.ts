import { Readable } from 'node:stream';

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Request } from 'express';

/** A request body the JSON parser left alone (text/csv), to be streamed. */
export interface Upload {
  /** null when the body is not text/csv (it was parsed as JSON) */
  csv: Readable | null;
}

/** Hands a CSV request body to a handler as a stream: `@CsvUpload() upload: Upload`. */
export const CsvUpload = createParamDecorator((_data: unknown, ctx: ExecutionContext): Upload => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return { csv: isCsv(req) ? req : null };
});

/** `Content-Type: text/csv` (any parameters). */
export function isCsv(req: Request): boolean {
  return /^text\/csv\s*(;|$)/i.test(req.headers['content-type'] ?? '');
}
