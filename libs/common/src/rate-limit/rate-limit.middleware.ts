import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { NextFunction, Request, Response } from 'express';

import { RedisService } from '@app/redis';

import { AuthService } from '../auth/auth.service';
import { ClientAddress } from '../http/client-address';
import { AppError } from '../http/errors';
import { WindowedRecord, windowEnd } from './redis-throttler.storage';

export const API_THROTTLER = 'api';

/**
 * The API rate limit, in front of body parsing and routing so that every /api response
 * (401, 404, malformed JSON included) carries the X-RateLimit-* headers. Counts per API key
 * (per client address without a valid key, see ClientAddress) in Redis, in fixed windows aligned to the clock
 * (`X-RateLimit-Reset` = the window's end, epoch seconds); if Redis is down it lets requests through.
 */
@Injectable()
export class RateLimitMiddleware implements NestMiddleware {
  private readonly logger = new Logger('RateLimit');
  private readonly limit: number;
  private readonly ttlMs: number;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly auth: AuthService,
    private readonly redis: RedisService,
    private readonly clients: ClientAddress,
  ) {
    const throttler = (Array.isArray(options) ? options : options.throttlers)[0];
    this.limit = Number(throttler.limit);
    this.ttlMs = Number(throttler.ttl);
  }

  async use(req: Request, res: Response, next: NextFunction): Promise<void> {
    const reset = Math.ceil(windowEnd(Date.now(), this.ttlMs) / 1000);
    res.setHeader('X-RateLimit-Limit', this.limit);
    res.setHeader('X-RateLimit-Remaining', this.limit);
    res.setHeader('X-RateLimit-Reset', reset);
    try {
      const result = await this.auth.resolve(req as never);
      if (!this.redis.ready) {
        this.logger.warn('Redis unavailable: rate limit not enforced');
        return next();
      }
      const tracker =
        'principal' in result ? `user:${result.principal.user.id}` : `ip:${this.clients.of(req)}`;
      const record = await this.storage
        .increment(tracker, this.ttlMs, this.limit, 0, API_THROTTLER)
        .catch((err: Error) => {
          this.logger.warn(`Redis error, rate limit not enforced: ${err.message}`);
          return null;
        });
      if (!record) return next();
      res.setHeader('X-RateLimit-Remaining', Math.max(0, this.limit - record.totalHits));
      // the window that really counted this request (the storage picked it at the INCR)
      const resetAt = (record as Partial<WindowedRecord>).resetAt;
      if (resetAt) res.setHeader('X-RateLimit-Reset', resetAt);
      if (record.totalHits > this.limit) {
        res.setHeader('Retry-After', record.timeToExpire);
        throw new AppError(
          429,
          `Rate limit exceeded: ${this.limit} requests per ${this.ttlMs / 1000} seconds`,
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  }
}
