import { GCProfiler, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { RedisService } from '../redis.service';
import { CACHE_BUCKETS, cacheBucket, keySlot } from '../key-slot';
import { InvalidationLog } from './invalidation-log';
import { BusMember, InvalidationBus, SharedCache } from './shared-cache';

/** A bus without Redis: invalidations reach the members directly, `live` is set by the test. */
class FakeBus implements InvalidationBus {
  live = true;
  readonly channel = 'test:cache:bus';
  readonly members = new Map<string, BusMember>();
  readonly redis = {
    ready: false,
    client: { on: () => undefined },
    key: (...parts: string[]) => parts.join(':'),
    slotKey: (tag: string[], ...parts: string[]) => `{${tag.join(':')}}:${parts.join(':')}`,
  } as unknown as RedisService;

  join(name: string, member: BusMember): void {
    this.members.set(name, member);
  }
}

interface Owner {
  id: number;
  name: string;
}

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('InvalidationLog', () => {
  it('a read is unchanged unless one of its names was invalidated after it began', () => {
    const log = new InvalidationLog();
    const before = log.mark();
    log.invalidate(['a']);
    const after = log.mark();
    expect(log.unchangedSince(before, ['a'])).toBe(false);
    expect(log.unchangedSince(before, ['b'])).toBe(true);
    expect(log.unchangedSince(after, ['a'])).toBe(true);
  });

  it('invalidateAll makes every earlier read stale', () => {
    const log = new InvalidationLog();
    const mark = log.mark();
    log.invalidateAll();
    expect(log.unchangedSince(mark, ['anything'])).toBe(false);
    expect(log.unchangedSince(log.mark(), ['anything'])).toBe(true);
  });

  it('forgets old names past its capacity, treating reads older than them as stale', () => {
    const log = new InvalidationLog(2);
    const old = log.mark();
    log.invalidate(['a']);
    const middle = log.mark();
    log.invalidate(['b']);
    log.invalidate(['c']); // 'a' is forgotten
    expect(log.unchangedSince(old, ['z'])).toBe(false);
    expect(log.unchangedSince(middle, ['z'])).toBe(true);
    expect(log.unchangedSince(middle, ['b'])).toBe(false);
  });

  it('spreads keys evenly over its buckets', () => {
    const counts = new Array<number>(CACHE_BUCKETS).fill(0);
    for (let i = 0; i < 16_000; i++) counts[cacheBucket(`a${i.toString(36)}`)]++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1200);
  });
});

describe('SharedCache (in-process layer)', () => {
  const make = (bus: FakeBus, extra: Partial<{ cacheMissing: boolean }> = {}) =>
    new SharedCache<Owner>(bus, {
      name: 'owners',
      max: 100,
      ttlMs: 60_000,
      tags: (o) => [`user:${o.id}`],
      ...extra,
    });

  it('loads once for concurrent lookups of a key and serves the answer from memory after', async () => {
    const bus = new FakeBus();
    const cache = make(bus);
    const load = jest.fn(async (key: string) => ({ id: 1, name: key }));
    const [a, b] = await Promise.all([cache.get('k', load), cache.get('k', load)]);
    expect(a).toEqual({ id: 1, name: 'k' });
    expect(b).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.peek('k')).toBe(a);
  });

  it('serves nothing from memory and keeps nothing while the bus is not live', async () => {
    const bus = new FakeBus();
    const cache = make(bus);
    await cache.get('k', async () => ({ id: 1, name: 'k' }));
    bus.live = false;
    expect(cache.peek('k')).toBeUndefined();
    const load = jest.fn(async () => ({ id: 1, name: 'fresh' }));
    expect(await cache.get('k', load)).toEqual({ id: 1, name: 'fresh' });
    expect(await cache.get('k', load)).toEqual({ id: 1, name: 'fresh' });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('a load overtaken by an invalidation of its key or tag answers but is not kept', async () => {
    const bus = new FakeBus();
    const cache = make(bus);
    for (const name of ['k', 'user:7']) {
      const gate = deferred<Owner>();
      const pending = cache.get('k', () => gate.promise);
      bus.members.get('owners')!.drop([name]);
      gate.resolve({ id: 7, name: 'old' });
      expect(await pending).toEqual({ id: 7, name: 'old' });
      expect(cache.peek('k')).toBeUndefined();
    }
  });

  it('an invalidation by tag drops every key carrying it', async () => {
    const bus = new FakeBus();
    const cache = make(bus);
    await cache.get('key-a', async () => ({ id: 7, name: 'a' }));
    await cache.get('key-b', async () => ({ id: 7, name: 'b' }));
    await cache.get('key-c', async () => ({ id: 8, name: 'c' }));
    bus.members.get('owners')!.drop(['user:7']);
    expect(cache.peek('key-a')).toBeUndefined();
    expect(cache.peek('key-b')).toBeUndefined();
    expect(cache.peek('key-c')).toEqual({ id: 8, name: 'c' });
  });

  it('caches "missing" unless told not to; a reset forgets everything', async () => {
    const bus = new FakeBus();
    const missing = make(bus);
    await missing.get('none', async () => null);
    expect(missing.peek('none')).toBeNull();
    missing.reset();
    expect(missing.peek('none')).toBeUndefined();

    const bus2 = new FakeBus();
    const noMissing = make(bus2, { cacheMissing: false });
    await noMissing.get('none', async () => null);
    expect(noMissing.peek('none')).toBeUndefined();
  });

  it('invalidate drops locally even when Redis is unreachable (and keeps the names to send later)', async () => {
    const bus = new FakeBus();
    const cache = make(bus);
    await cache.get('k', async () => ({ id: 1, name: 'k' }));
    await cache.invalidate(['k']);
    expect(cache.peek('k')).toBeUndefined();
    cache.close();
  });

  it('spreads keys evenly over its buckets', () => {
    const counts = new Array<number>(CACHE_BUCKETS).fill(0);
    for (let i = 0; i < 16_000; i++) counts[cacheBucket(`a${i.toString(36)}`)]++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1200);
  });
});

describe('SharedCache (Redis layer)', () => {
  /**
   * A cache without an in-process layer over a Redis whose batched reads answer from `held`
   * (every key read is listed in `reads`), or with `answer` (nothing listed).
   */
  const make = (
    held: Record<string, string>,
    fail?: Error,
    answer?: (key: string) => Promise<string | null>,
  ) => {
    const bus = new FakeBus();
    const reads: string[] = [];
    const sets: Array<[string, string]> = [];
    Object.assign(bus.redis, {
      ready: true,
      reads: {
        get: (key: string) => {
          if (answer) return answer(key);
          reads.push(key);
          return fail ? Promise.reject(fail) : Promise.resolve(held[key] ?? null);
        },
      },
      client: {
        on: () => undefined,
        set: (key: string, value: string) => {
          sets.push([key, value]);
          return Promise.resolve('OK');
        },
      },
    });
    const cache = new SharedCache<Owner>(bus, {
      name: 'owners',
      max: 0,
      ttlMs: 60_000,
      remote: {
        ttlSeconds: 60,
        missingTtlSeconds: 5,
        encode: JSON.stringify,
        decode: (raw) => {
          const v = JSON.parse(raw) as Owner;
          if (typeof v.id !== 'number') throw new Error('unreadable');
          return v;
        },
      },
    });
    return { cache, reads, sets };
  };

  it('answers from Redis (a value, or its "missing" marker) without the loader', async () => {
    const { cache, reads } = make({ 'owners:a': '{"id":1,"name":"a"}', 'owners:none': '-' });
    const load = jest.fn(async () => ({ id: 9, name: 'loaded' }));
    await expect(cache.get('a', load)).resolves.toEqual({ id: 1, name: 'a' });
    await expect(cache.get('none', load)).resolves.toBeNull();
    expect(load).not.toHaveBeenCalled();
    expect(reads).toEqual(['owners:a', 'owners:none']);
  });

  it('concurrent lookups of a key share one read; once it is answered, the next one reads again', async () => {
    const { cache, reads } = make({ 'owners:a': '{"id":1,"name":"a"}' });
    const load = jest.fn(async () => null);
    const [x, y] = await Promise.all([cache.get('a', load), cache.get('a', load)]);
    expect(y).toBe(x);
    expect(reads).toHaveLength(1);
    await cache.get('a', load);
    expect(reads).toHaveLength(2);
  });

  it('a lookup in a later turn reads again while the first read is under way; one in the same turn after the answer too', async () => {
    const { cache, reads } = make({ 'owners:a': '{"id":1,"name":"a"}' });
    const load = jest.fn(async () => null);
    const first = cache.get('a', load);
    await new Promise((r) => setImmediate(r));
    const later = cache.get('a', load);
    expect(reads).toHaveLength(2);
    await expect(first).resolves.toEqual({ id: 1, name: 'a' });
    await expect(later).resolves.toEqual({ id: 1, name: 'a' });
  });

  it('lookups leave nothing for young-generation collections to promote (no long-lived Map takes a key per lookup)', async () => {
    // A Map that lives as long as the cache and takes and deletes a key per lookup replaces its
    // hash table every few dozen lookups; V8 links each replaced table to the next, and a chain
    // from a table in the old generation keeps every later lookup's promise and value alive
    // through scavenges. Measured with such a Map: megabytes promoted a scavenge; without: ~0.
    const value = (key: string) =>
      JSON.stringify({ id: 1, name: key, url: `https://example.com/${key}`.repeat(8) });
    // answered in a later turn, as the batched MGET is
    const { cache } = make(
      {},
      undefined,
      (key) => new Promise((r) => setImmediate(() => r(value(key)))),
    );
    const load = async () => null;
    const rounds = async (n: number) => {
      for (let round = 0; round < n; round++)
        await Promise.all(
          Array.from({ length: 50 }, (_, i) => cache.get(`k${(round * 50 + i) % 10_000}`, load)),
        );
    };
    await rounds(500); // warm: the cache and the code reach their steady state
    // a full collection moves what is live into the old generation, as a long-running process's do
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    const profiler = new GCProfiler();
    profiler.start();
    await rounds(4_000);
    const { statistics } = profiler.stop() as unknown as {
      statistics: Array<{
        gcType: string;
        beforeGC: { heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }> };
        afterGC: { heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }> };
      }>;
    };
    const old = (h: { heapSpaceStatistics: Array<{ spaceName: string; spaceUsedSize: number }> }) =>
      h.heapSpaceStatistics.find((sp) => sp.spaceName === 'old_space')?.spaceUsedSize ?? 0;
    const scavenges = statistics.filter((st) => st.gcType === 'Scavenge');
    const promoted = scavenges.reduce(
      (sum, st) => sum + Math.max(0, old(st.afterGC) - old(st.beforeGC)),
      0,
    );
    expect(scavenges.length).toBeGreaterThan(5);
    expect(promoted / scavenges.length).toBeLessThan(200_000);
  });

  it('an entry Redis does not hold, or cannot be read, is loaded and written back', async () => {
    const { cache, sets } = make({ 'owners:bad': '{"name":"no id"}' });
    const load = jest.fn(async (key: string) => ({ id: 2, name: key }));
    await expect(cache.get('bad', load)).resolves.toEqual({ id: 2, name: 'bad' });
    await expect(cache.get('new', load)).resolves.toEqual({ id: 2, name: 'new' });
    expect(load).toHaveBeenCalledTimes(2);
    expect(sets).toEqual([
      ['owners:bad', '{"id":2,"name":"bad"}'],
      ['owners:new', '{"id":2,"name":"new"}'],
    ]);
  });

  it('a failed Redis read falls back to the loader; a failed load rejects and is not kept', async () => {
    const { cache } = make({}, new Error('Connection is closed.'));
    await expect(cache.get('a', async () => ({ id: 3, name: 'a' }))).resolves.toEqual({
      id: 3,
      name: 'a',
    });
    const broken = jest.fn(async (): Promise<Owner | null> => {
      throw new Error('postgres down');
    });
    await expect(cache.get('b', broken)).rejects.toThrow('postgres down');
    await expect(cache.get('b', broken)).rejects.toThrow('postgres down');
    expect(broken).toHaveBeenCalledTimes(2);
  });
});

describe('SharedCache invalidation on a Redis Cluster', () => {
  it('deletes the Redis entries one slot at a time, then publishes', async () => {
    const calls: Array<{ command: string; args: string[] }> = [];
    const client = {
      isCluster: true,
      on: () => undefined,
      del: async (...keys: string[]) => {
        // Redis refuses a DEL across slots
        if (new Set(keys.map(keySlot)).size > 1) throw new Error('CROSSSLOT');
        calls.push({ command: 'del', args: keys });
        return keys.length;
      },
      publish: async (channel: string, message: string) => {
        calls.push({ command: 'publish', args: [channel, message] });
        return 1;
      },
      multi: () => {
        throw new Error('no MULTI across slots');
      },
    };
    const bus = new FakeBus();
    Object.assign(bus.redis, { ready: true, client });
    const cache = new SharedCache<Owner>(bus, {
      name: 'owners',
      max: 10,
      ttlMs: 60_000,
      remote: {
        ttlSeconds: 60,
        missingTtlSeconds: 60,
        encode: JSON.stringify,
        decode: JSON.parse,
      },
    });
    // entries spread over CACHE_BUCKETS hash tags by their key (a turn's reads share few slots)
    const names = ['a', 'b', 'x', 'y', 'zz', 'link-7'];
    await cache.invalidate(names);
    cache.close();
    const keys = names.map((n) => `{owners:${cacheBucket(n)}}:${n}`);
    const dels = calls.filter((c) => c.command === 'del');
    expect(dels.flatMap((c) => c.args).sort()).toEqual([...keys].sort());
    for (const del of dels) expect(new Set(del.args.map(keySlot)).size).toBe(1);
    expect(dels).toHaveLength(new Set(keys.map(keySlot)).size);
    // the message last, once the entries are gone
    expect(calls[calls.length - 1]).toEqual({
      command: 'publish',
      args: ['test:cache:bus', JSON.stringify({ c: 'owners', k: names })],
    });
  });

  it('spreads keys evenly over its buckets', () => {
    const counts = new Array<number>(CACHE_BUCKETS).fill(0);
    for (let i = 0; i < 16_000; i++) counts[cacheBucket(`a${i.toString(36)}`)]++;
    expect(Math.min(...counts)).toBeGreaterThan(800);
    expect(Math.max(...counts)).toBeLessThan(1200);
  });
});
