import { keySlot, RedisService } from '@app/redis';

import { RedisThrottlerStorage } from './redis-throttler.storage';

/**
 * A stand-in Redis that runs the hits script on a map (INCRBY, and PEXPIRE on a created key) and
 * records each call's keys; `cluster` makes it report itself as a Redis Cluster client.
 */
function fakeRedis(options: { cluster?: boolean; fail?: Error } = {}) {
  const counts = new Map<string, number>();
  const expires = new Map<string, number>();
  const calls: string[][] = [];
  const client = {
    isCluster: options.cluster === true,
    defineCommand: () => undefined,
    rateLimitHits: (numKeys: number, ...rest: Array<string | number>) => {
      const keys = rest.slice(0, numKeys) as string[];
      const argv = rest.slice(numKeys).map(Number);
      calls.push(keys);
      if (options.fail) return Promise.reject(options.fail);
      if (options.cluster && new Set(keys.map(keySlot)).size > 1)
        return Promise.reject(new Error('CROSSSLOT'));
      return Promise.resolve(
        keys.map((key, i) => {
          const n = argv[2 * i];
          const count = (counts.get(key) ?? 0) + n;
          counts.set(key, count);
          if (count === n) expires.set(key, argv[2 * i + 1]);
          return count;
        }),
      );
    },
  };
  const redis = {
    client,
    key: (...parts: Array<string | number>) => `t:${parts.join(':')}`,
  } as unknown as RedisService;
  return { redis, calls, counts, expires };
}

const TTL = 60_000;
const hit = (storage: RedisThrottlerStorage, tracker: string) =>
  storage.increment(tracker, TTL, 3, 0, 'api');

describe('RedisThrottlerStorage', () => {
  it('counts the hits of one turn in one script call, each request with a count of its own in arrival order', async () => {
    const { redis, calls, counts, expires } = fakeRedis();
    const storage = new RedisThrottlerStorage(redis);
    const records = await Promise.all([
      hit(storage, 'user:1'),
      hit(storage, 'user:2'),
      hit(storage, 'user:1'),
      hit(storage, 'user:1'),
      hit(storage, 'user:1'),
    ]);
    expect(calls).toHaveLength(1);
    expect(records.map((r) => r.totalHits)).toEqual([1, 1, 2, 3, 4]);
    expect(records.map((r) => r.isBlocked)).toEqual([false, false, false, false, true]);
    expect([...counts.values()]).toEqual([4, 1]);
    // a created key outlives its window (by 5 s), and is named by it
    const [key] = counts.keys();
    const end = records[0].resetAt * 1000;
    expect(key).toBe(`t:rl:api:user:1:${end / TTL}`);
    expect(expires.get(key)).toBeGreaterThan(5000);
    expect(expires.get(key)).toBeLessThanOrEqual(TTL + 5000);

    // the next turn counts on from there, in a call of its own
    expect((await hit(storage, 'user:1')).totalHits).toBe(5);
    expect(calls).toHaveLength(2);
  });

  it('on a Redis Cluster, one call per hash slot', async () => {
    const { redis, calls } = fakeRedis({ cluster: true });
    const storage = new RedisThrottlerStorage(redis);
    const trackers = Array.from({ length: 20 }, (_, i) => `user:${i}`);
    const records = await Promise.all(trackers.map((t) => hit(storage, t)));
    expect(records.every((r) => r.totalHits === 1)).toBe(true);
    for (const keys of calls) expect(new Set(keys.map(keySlot)).size).toBe(1);
    expect(calls.flat()).toHaveLength(20);
  });

  it('a failed call rejects every request it counted (the middleware lets them through)', async () => {
    const { redis } = fakeRedis({ fail: new Error('connection lost') });
    const storage = new RedisThrottlerStorage(redis);
    const results = await Promise.allSettled([hit(storage, 'user:1'), hit(storage, 'ip:1.2.3.4')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
