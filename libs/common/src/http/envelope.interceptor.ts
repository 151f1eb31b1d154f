import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Response } from 'express';
import { map, Observable } from 'rxjs';

import { WriterMarkInterceptor } from '../auth/writer-mark.interceptor';
import { envelope } from './envelope';

/**
 * The one place where controller results become the documented success bodies, always with
 * HTTP 200 (the spec's rule for every success, creations included: no per-route @HttpCode).
 * The one global interceptor: the writer mark (read-your-writes over replicas) runs inside it,
 * around the handler, as a second global interceptor would, without another turn of Nest's
 * interceptor chain (an AsyncResource, a deferred Observable) on every request.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly marks: WriterMarkInterceptor) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return this.marks.intercept(context, next).pipe(
      map((result) => {
        // a handler that answered itself (`@Res()`: a redirect, a CSV stream) keeps its status
        if (!res.headersSent) res.status(200);
        return envelope(result);
      }),
    );
  }
}
