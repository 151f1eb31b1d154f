import { IncomingMessage } from 'node:http';

import { Injectable, Logger } from '@nestjs/common';

import { ClientAddress } from '@app/common';
import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

/** The window of the budget. */
export const MISS_WINDOW_SECONDS = 60;

/**
 * Guessing short links is slow: each client address has MISS_BUDGET unknown aliases per minute,
 * counted in Redis so that every replica adds to one count. Past it the client gets the 429 page
 * for every alias until the minute is over, hits included, so the answers tell a guesser nothing.
 *
 * Misses cost the count's write, sent without waiting (the miss is answered at once; a client
 * can overshoot by the misses it has in flight). Hits cost a check of an in-process set that is
 * empty unless someone is over budget.
 */
@Injectable()
export class MissBudget {
  private readonly logger = new Logger(MissBudget.name);
  private readonly budget: number;
  /** client address → end of the window it is blocked for (epoch ms) */
  private readonly blocked = new Map<string, number>();

  constructor(
    private readonly redis: RedisService,
    private readonly clients: ClientAddress,
    config: AppConfig,
  ) {
    this.budget = config.MISS_BUDGET;
  }

  /** Whether the request's client is over budget (checked before any lookup). */
  exhausted(req: IncomingMessage): boolean {
    if (this.blocked.size === 0) return false;
    const ip = this.clients.of(req);
    const until = this.blocked.get(ip);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.blocked.delete(ip);
    return false;
  }

  /** Counts a miss of the request's client. */
  miss(req: IncomingMessage): void {
    if (this.budget === 0 || !this.redis.ready) return;
    const ip = this.clients.of(req);
    const window = Math.floor(Date.now() / 1000 / MISS_WINDOW_SECONDS);
    const key = this.redis.key('miss', ip, window);
    this.redis.client
      .multi()
      .incr(key)
      .expire(key, MISS_WINDOW_SECONDS + 5)
      .exec()
      .then((replies) => {
        const count = Number(replies?.[0]?.[1] ?? 0);
        if (count > this.budget) {
          if (this.blocked.size >= 100_000) this.blocked.clear();
          this.blocked.set(ip, (window + 1) * MISS_WINDOW_SECONDS * 1000);
        }
      })
      .catch((err: Error) => this.logger.warn(`miss not counted: ${err.message}`));
  }
}
