import { Injectable } from '@nestjs/common';

import { ReadReplicas } from '@app/database';

import { PRINCIPAL } from './decorators';
import { Principal } from './principal';

/** Methods that never write. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** On a request whose handler may run: the user to mark once it is answered. */
const MARKS = Symbol('writer-mark');

type MarkedRequest = { method?: string; [PRINCIPAL]?: Principal; [MARKS]?: number };

/**
 * Read-your-writes over the read replicas: every authenticated request that may write (any
 * method but GET, HEAD, OPTIONS) and got past the guard marks its user as a writer
 * (ReadReplicas.wrote) before its response leaves, so the user's next list or statistics read,
 * on any api process, is served by the primary. Whatever the outcome: a failed request may have
 * written too. Nothing without replicas configured.
 *
 * The guard calls `admit` once a request may reach its handler; the success answer
 * (ApiHttpAdapter.reply) and the error filter wait for `before` ahead of what they send. Not a
 * Nest interceptor: one of those costs every request an AsyncResource, deferred Observables and
 * a watch on the socket (docs/performance.md, "Link creation").
 */
@Injectable()
export class WriterMark {
  constructor(private readonly replicas: ReadReplicas) {}

  /** The request may reach its handler: its user is marked when it is answered (a write). */
  admit(req: MarkedRequest): void {
    if (!this.replicas.configured || READS.has(req.method ?? 'GET')) return;
    const user = req[PRINCIPAL]?.user;
    if (user) req[MARKS] = user.id;
  }

  /** The mark to wait for before answering `req` (null: none); it never rejects. */
  before(req: MarkedRequest | undefined): Promise<void> | null {
    const userId = req?.[MARKS];
    if (userId === undefined) return null;
    // once per request: an error after a success answer (a stream) does not mark again
    req![MARKS] = undefined;
    return this.replicas.wrote(userId);
  }
}
