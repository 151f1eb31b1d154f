import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { AppConfig } from '@app/config';
import { inTransaction, ReadReplicas } from '@app/database';

import { ServiceUnavailableError, TooManyRequestsError } from '../http/errors';

/** Seconds a list refused for want of a slot is told to wait (Retry-After). */
export const LIST_RETRY_AFTER_SECONDS = 1;

/** Postgres's `query_canceled`: what `statement_timeout` raises. */
const QUERY_CANCELED = '57014';

/**
 * What every list's transaction sets: the statement timeout, and neither JIT compilation nor
 * parallel workers. A list reads one user's page in a millisecond or two, but the planner,
 * estimating an index lookup whose keys it cannot see (a search's keys are computed in the same
 * statement), can cost it high enough for both: measured on a search at 10 000 000 links,
 * 0.2 ms of work took 79 ms with JIT and 10 ms with two workers. Without workers a list also
 * stays on its one connection's backend: one core at most, as the slots count it.
 */
export function listLimits(timeoutMs: number): string {
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0)
    throw new Error(`LIST_QUERY_MS ${timeoutMs} is no whole number of ms`);
  return `SET LOCAL statement_timeout = ${timeoutMs}; SET LOCAL jit = off; SET LOCAL max_parallel_workers_per_gather = 0`;
}

/**
 * The budget of list and search queries, which can read many rows for a user with many links: at
 * most LIST_QUERIES of them run at once in a process (never more than DB_POOL_SIZE - 1, so
 * redirects and every other request keep connections of the pool), at most LIST_QUERIES_PER_USER
 * of one user (past it: 429 with Retry-After at once), and each within LIST_QUERY_MS
 * (`SET LOCAL statement_timeout` in its transaction; past it: 503 saying so, never a 500).
 * A list that finds the process's slots taken waits for one in turn, up to LIST_QUERY_MS.
 */
@Injectable()
export class ListBudget {
  private readonly slots: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly perUser = new Map<number, number>();
  /** What a list's transaction sets, with its BEGIN (listLimits). */
  private readonly limits: string;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: AppConfig,
    private readonly replicas: ReadReplicas,
  ) {
    this.slots = Math.max(1, Math.min(config.LIST_QUERIES, config.DB_POOL_SIZE - 1));
    this.limits = listLimits(config.LIST_QUERY_MS);
  }

  /**
   * Runs `work` for `userId` in a transaction of its own with the list's statement timeout,
   * within the process's and the user's slots. `what` names the query in the 503. With
   * `replica`, the transaction is a read replica's snapshot (ReadReplicas.read: the primary when
   * none is usable or the caller wrote lately). With `light`, a query whose cost is bounded by the
   * page's depth (a maintained count and an index range: the small lists) gets the statement
   * timeout only, neither slot: the dashboard loads several of them at once for one user.
   * `hint` follows the 503's message: what the caller can do to stay within the budget.
   */
  async run<T>(
    userId: number,
    what: string,
    work: (em: EntityManager) => Promise<T>,
    options: { replica?: boolean; light?: boolean; hint?: string } = {},
  ): Promise<T> {
    const timed = (run: () => Promise<T>) => this.timed(what, options.hint, run);
    if (options.light) return timed(() => this.bounded(this.db.manager, work));
    const mine = this.perUser.get(userId) ?? 0;
    if (mine >= this.config.LIST_QUERIES_PER_USER)
      throw new TooManyRequestsError(
        `Too many lists or searches at once: at most ${this.config.LIST_QUERIES_PER_USER} of yours run together`,
        LIST_RETRY_AFTER_SECONDS,
      );
    this.perUser.set(userId, mine + 1);
    try {
      await this.slot();
      try {
        return await timed(() =>
          options.replica
            ? this.replicas.read((em) => this.bounded(em, work), {
                caller: userId,
                local: this.limits,
              })
            : this.bounded(this.db.manager, work),
        );
      } finally {
        this.release();
      }
    } finally {
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    }
  }

  /** `run`'s answer, a statement cancelled by the timeout turned into the 503 naming `what`. */
  private async timed<T>(
    what: string,
    hint: string | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if ((err as { code?: string }).code === QUERY_CANCELED)
        throw new ServiceUnavailableError(
          `${what} did not finish within its ${this.config.LIST_QUERY_MS} ms budget${hint ? `: ${hint}` : ''}`,
        );
      throw err;
    }
  }

  /**
   * `work` under the list's limits: in `em`'s transaction when it has one (a replica's
   * snapshot, opened with them by ReadReplicas.read), else in a new one on the primary,
   * opened with `BEGIN` and the limits (listLimits) in one round trip (at the server's default
   * isolation, read committed: naming it would cost more), its queries queued: `work` may issue
   * them side by side.
   */
  private bounded<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
    if (em.queryRunner) return work(em);
    return inTransaction(this.db, `BEGIN; ${this.limits}`, work);
  }

  /** Takes one of the process's slots, waiting in turn up to LIST_QUERY_MS (then 429). */
  private slot(): Promise<void> {
    if (this.running < this.slots) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const take = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(take);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(
          new TooManyRequestsError(
            'The service is running as many lists and searches as it can: try again shortly',
            LIST_RETRY_AFTER_SECONDS,
          ),
        );
      }, this.config.LIST_QUERY_MS);
      this.waiting.push(take);
    });
  }

  /** Hands the slot to the next list waiting for one, or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
