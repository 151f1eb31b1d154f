import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Response } from 'express';
import { map, Observable } from 'rxjs';

import { envelope } from './envelope';

/**
 * The one place where controller results become the documented success bodies, always with
 * HTTP 200 (the spec's rule for every success, creations included: no per-route @HttpCode).
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((result) => {
        res.status(200);
        return envelope(result);
      }),
    );
  }
}
