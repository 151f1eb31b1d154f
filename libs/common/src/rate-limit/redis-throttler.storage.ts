import { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';

import { groupBySlot, isCluster, RedisService } from '@app/redis';

/**
 * Counts hits in windows' keys: for each key `KEYS[i]`, `ARGV[2i-1]` hits in one INCRBY; a key
 * the INCRBY created (its count is those hits) expires `ARGV[2i]` ms later, shortly after its
 * window ends. Answers each key's count after its hits.
 */
const HITS = `
local counts = {}
for i = 1, #KEYS do
  local n = tonumber(ARGV[2 * i - 1])
  local count = redis.call('INCRBY', KEYS[i], n)
  if count == n then redis.call('PEXPIRE', KEYS[i], ARGV[2 * i]) end
  counts[i] = count
end
return counts`;

type HitsRedis = { rateLimitHits(...keysAndArgs: Array<string | number>): Promise<number[]> };

/** A throttler record that also names the end of the window the hit was counted in. */
export interface WindowedRecord extends ThrottlerStorageRecord {
  /** Epoch seconds at which the counting window ends (X-RateLimit-Reset). */
  resetAt: number;
}

/** The end (epoch ms) of the fixed window of `ttl` ms that contains `now`. */
export function windowEnd(now: number, ttl: number): number {
  return (Math.floor(now / ttl) + 1) * ttl;
}

/** The requests waiting on one window key of this turn, in the order they came. */
interface PendingKey {
  /** ms to keep the key once created (till shortly after its window ends) */
  keepMs: number;
  waiters: Array<{ resolve: (count: number) => void; reject: (err: Error) => void }>;
}

/**
 * @nestjs/throttler storage in Redis, so every api replica shares one budget per key. Windows are
 * fixed and aligned to the clock (a 60 s window starts on the minute), so every replica reports
 * the same `X-RateLimit-Reset` for a window.
 *
 * The hits of one turn of the event loop are counted together, at its end (setImmediate, as
 * BatchedGet does for reads): one script for all of the turn's keys (one per hash slot on a
 * Redis Cluster), one INCRBY per key however many of its requests came in that turn. Each
 * request still gets a count of its own, in arrival order (the key's count less the hits after
 * it): the same counts, the same 429s and `X-RateLimit-Remaining` as one INCR each, across
 * replicas too, for one write and one read of this process per turn instead of one per request
 * (a command, its promise and a socket write each: ~7 % of a link creation's CPU).
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private defined = false;
  private pending = new Map<string, PendingKey>();

  constructor(private readonly redis: RedisService) {}

  async increment(
    key: string,
    ttl: number,
    limit: number,
    _block: number,
    name: string,
  ): Promise<WindowedRecord> {
    const now = Date.now();
    const end = windowEnd(now, ttl);
    const hits = await this.hit(this.redis.key('rl', name, key, end / ttl), end - now + 5000);
    const timeToExpire = Math.max(1, Math.ceil((end - now) / 1000));
    return {
      totalHits: hits,
      timeToExpire,
      isBlocked: hits > limit,
      timeToBlockExpire: hits > limit ? timeToExpire : 0,
      resetAt: end / 1000,
    };
  }

  /** One hit in the window key `key` (created to live `keepMs`): its count after this hit. */
  private hit(key: string, keepMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      let entry = this.pending.get(key);
      if (!entry) {
        if (this.pending.size === 0) setImmediate(this.send);
        this.pending.set(key, (entry = { keepMs, waiters: [] }));
      }
      entry.waiters.push({ resolve, reject });
    });
  }

  private readonly send = (): void => {
    const pending = this.pending;
    this.pending = new Map();
    const client = this.redis.client;
    if (!this.defined) {
      client.defineCommand('rateLimitHits', { lua: HITS });
      this.defined = true;
    }
    // a multi-key script must name keys of one hash slot on a cluster
    const groups = isCluster(client) ? groupBySlot(pending.keys()) : [[...pending.keys()]];
    for (const keys of groups) {
      const args: Array<string | number> = [keys.length, ...keys];
      for (const key of keys) {
        const entry = pending.get(key) as PendingKey;
        args.push(entry.waiters.length, entry.keepMs);
      }
      (client as unknown as HitsRedis).rateLimitHits(...args).then(
        (counts) =>
          keys.forEach((key, i) => {
            const { waiters } = pending.get(key) as PendingKey;
            // the first to come gets the lowest count
            const first = counts[i] - waiters.length;
            waiters.forEach((w, j) => w.resolve(first + j + 1));
          }),
        (err: Error) =>
          keys.forEach((key) =>
            (pending.get(key) as PendingKey).waiters.forEach((w) => w.reject(err)),
          ),
      );
    }
  };
}
