import { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

import { RedisService } from '@app/redis';

/** Fixed window: INCR, and start the window's expiry on its first hit, atomically. */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;

/** @nestjs/throttler storage in Redis, so every api replica shares one budget per key. */
export class RedisThrottlerStorage implements ThrottlerStorage {
  constructor(private readonly redis: RedisService) {}

  async increment(key: string, ttl: number, limit: number, _block: number, name: string): Promise<ThrottlerStorageRecord> {
    const [hits, pttl] = (await this.redis.client.eval(
      INCREMENT,
      1,
      this.redis.key('rl', name, key),
      String(ttl),
    )) as [number, number];
    const timeToExpire = Math.ceil(pttl / 1000);
    return { totalHits: hits, timeToExpire, isBlocked: hits > limit, timeToBlockExpire: hits > limit ? timeToExpire : 0 };
  }
}
