import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Request } from 'express';
import { catchError, concatMap, from, map, Observable, throwError } from 'rxjs';

import { ReadReplicas } from '@app/database';

import { PRINCIPAL } from './decorators';
import { Principal } from './principal';

/** Methods that never write. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Read-your-writes over the read replicas: every authenticated request that may write (any
 * method but GET, HEAD, OPTIONS) marks its user as a writer (ReadReplicas.wrote) before its
 * response leaves, so the user's next list or statistics read, on any api process, is served by
 * the primary. Whatever the outcome: a failed request may have written too. Nothing without
 * replicas configured.
 */
@Injectable()
export class WriterMarkInterceptor implements NestInterceptor {
  constructor(private readonly replicas: ReadReplicas) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request & { [PRINCIPAL]?: Principal }>();
    const user = req[PRINCIPAL]?.user;
    if (!this.replicas.configured || !user || READS.has(req.method)) return next.handle();
    const mark = () => from(this.replicas.wrote(user.id));
    return next.handle().pipe(
      concatMap((result) => mark().pipe(map(() => result))),
      catchError((err: unknown) => mark().pipe(concatMap(() => throwError(() => err)))),
    );
  }
}
