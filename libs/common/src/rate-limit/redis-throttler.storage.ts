import { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

import { RedisService } from '@app/redis';

/** Counts one hit in a window's key, which expires shortly after the window ends. */
const HIT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return hits`;

type HitRedis = { rateLimitHit(key: string, ttlMs: number): Promise<number> };

/** A throttler record that also names the end of the window the hit was counted in. */
export interface WindowedRecord extends ThrottlerStorageRecord {
  /** Epoch seconds at which the counting window ends (X-RateLimit-Reset). */
  resetAt: number;
}

/** The end (epoch ms) of the fixed window of `ttl` ms that contains `now`. */
export function windowEnd(now: number, ttl: number): number {
  return (Math.floor(now / ttl) + 1) * ttl;
}

/**
 * @nestjs/throttler storage in Redis, so every api replica shares one budget per key. Windows are
 * fixed and aligned to the clock (a 60 s window starts on the minute), so every replica reports
 * the same `X-RateLimit-Reset` for a window, and the count is one atomic INCR.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private defined = false;

  constructor(private readonly redis: RedisService) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    _block: number,
    name: string,
  ): Promise<WindowedRecord> {
    if (!this.defined) {
      this.redis.client.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT });
      this.defined = true;
    }
    const now = Date.now();
    const end = windowEnd(now, ttl);
    const hits = await (this.redis.client as unknown as HitRedis).rateLimitHit(
      this.redis.key('rl', name, key, end / ttl),
      end - now + 5000,
    );
    const timeToExpire = Math.max(1, Math.ceil((end - now) / 1000));
    return {
      totalHits: hits,
      timeToExpire,
      isBlocked: hits > limit,
      timeToBlockExpire: hits > limit ? timeToExpire : 0,
      resetAt: end / 1000,
    };
  }
}
