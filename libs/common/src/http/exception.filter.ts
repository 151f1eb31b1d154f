import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { Request, Response } from 'express';

import {
  isConcurrentConflict,
  isInvalidInput,
  isUnavailable,
  isUniqueViolation,
} from '@app/database';

import { WriterMark } from '../auth/writer-mark';

import { AppError, TooManyRequestsError } from './errors';
import { RouteIndex } from './route-index';

/** The message of a status when nothing more precise is known (and of every 5xx: no detail leaks). */
export const STATUS_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  401: 'A valid API key is required',
  403: 'You do not have permission to do this',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request body is larger than 1 MB',
  415: 'Content-Type must be application/json',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service temporarily unavailable, try again shortly',
};

export interface MappedError {
  status: number;
  message: string;
}

/** Maps anything thrown to a status and a client-safe message. Exported for the public handler. */
export function mapError(exception: unknown): MappedError {
  if (exception instanceof AppError)
    return { status: exception.status, message: exception.message };
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const body = exception.getResponse();
    let message: string | undefined;
    if (typeof body === 'string') message = body;
    else if (body && typeof body === 'object') {
      const m = (body as { message?: unknown }).message;
      message = Array.isArray(m) ? m.join('; ') : typeof m === 'string' ? m : undefined;
    }
    if (status >= 500) message = STATUS_MESSAGES[status] ?? STATUS_MESSAGES[500];
    if (status === 404 && (!message || message.startsWith('Cannot '))) message = 'Route not found';
    return { status, message: message ?? STATUS_MESSAGES[status] ?? 'Error' };
  }
  if (isUniqueViolation(exception))
    return { status: 409, message: 'A resource with this value already exists' };
  if (isInvalidInput(exception)) return { status: 400, message: 'A field has an invalid value' };
  if (isConcurrentConflict(exception))
    return {
      status: 409,
      message:
        'Another change to the same data was made at the same moment: nothing was saved, send it again',
    };
  if (isUnavailable(exception)) return { status: 503, message: STATUS_MESSAGES[503] };
  return { status: 500, message: STATUS_MESSAGES[500] };
}

/** Nest's answer to a request no route matched (`Cannot DELETE /api/url/2`). */
function isRouteMiss(exception: unknown): boolean {
  if (!(exception instanceof NotFoundException)) return false;
  const message = (exception.getResponse() as { message?: unknown }).message;
  return typeof message === 'string' && message.startsWith('Cannot ');
}

/**
 * Every error, of every route, becomes `{error: 1, message}` with its real status.
 * Unexpected errors are logged with their stack; the client gets a generic message. A request
 * no route matches is told what does (RouteIndex): 405 with `Allow`, or 404 naming the route.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly routes: RouteIndex,
    private readonly marks: WriterMark,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    // a write past the guard marks its user whatever the outcome (WriterMark), before the answer
    const mark = this.marks.before(req);
    if (!mark) return this.answer(exception, req, res);
    // nothing after Nest calls the filter would catch a throw here (a header Node refuses)
    mark
      .then(() => this.answer(exception, req, res))
      .catch((err: Error) => {
        this.logger.error({ err: { message: err.message, stack: err.stack } }, 'answer failed');
        if (!res.headersSent) res.destroy();
      });
  }

  private answer(exception: unknown, req: Request, res: Response): void {
    if (isRouteMiss(exception) && !res.headersSent) {
      const miss = this.routes.miss(req.method, req.path);
      if (miss.allow) res.setHeader('Allow', miss.allow);
      res.status(miss.status).json({ error: 1, message: miss.message });
      return;
    }
    const { status, message } = mapError(exception);
    if (status >= 500) {
      const err = exception as Error;
      this.logger.error(
        { err: { name: err?.name, message: err?.message, stack: err?.stack } },
        'request failed',
      );
    }
    if (res.headersSent) return;
    if (status === 429)
      res.setHeader(
        'Retry-After',
        exception instanceof TooManyRequestsError
          ? String(exception.retryAfter)
          : (res.getHeader('Retry-After') ?? '60'),
      );
    res.status(status).json({ error: 1, message });
  }
}
