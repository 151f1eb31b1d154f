import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import Redis, { Cluster } from 'ioredis';

import { CacheBus, keySlot, RedisService, REPEAT_INVALIDATION_MS } from '@app/redis';
import { VisitRecorder } from '@app/stats';

import { createTestApp, createUser, TestApp, TestUser, withTestApp } from './support/app';
import { addLink } from './support/links';
import { TestRedis, TestRedisCluster, TestRedisSentinel } from './support/services';
import { BROWSER_UA, eventually, foldStats, readStats, statsKeys } from './support/stats';

const MAIN = 'short.test';
const PASSWORD = 'redis-modes-secret';
/** Every Redis mode but the one chosen here is switched off (the run's own may be a cluster). */
const NO_MODE = { REDIS_CLUSTER_NODES: '', REDIS_SENTINELS: '', REDIS_PASSWORD: '' };

const visit = (t: TestApp, alias: string) =>
  t.http().get(`/${alias}`).set('Host', MAIN).set('User-Agent', BROWSER_UA).redirects(0);

/** The rate-limit budget left, as the last request reports it. */
async function remaining(t: TestApp, user: TestUser): Promise<number> {
  const res = await t.http().get('/api/account').set(user.auth).expect(200);
  return Number(res.headers['x-ratelimit-remaining']);
}

/**
 * What every mode must do: rate limits counted in Redis, a link cached (in memory and in Redis)
 * and dropped everywhere when it changes, a job queued (a QR code's render: 503 when BullMQ
 * cannot reach Redis), readiness answered.
 */
async function worksIn(
  t: TestApp,
  user: TestUser,
  link: { id: number; alias: string },
  url: string,
) {
  const left = await remaining(t, user);
  expect(await remaining(t, user)).toBe(left - 1);
  expect((await t.http().get('/health/ready').expect(200)).body.data.redis).toBe('up');
  await eventually(async () => t.app.get(CacheBus).live);
  // cached, then changed: the next visit follows the change
  await visit(t, link.alias).expect(302);
  await t.http().put(`/api/url/${link.id}/update`).set(user.auth).send({ url }).expect(200);
  expect((await visit(t, link.alias).expect(302)).headers.location).toBe(url);
  await t.http().post('/api/qr/add').set(user.auth).send({ type: 'text', data: url }).expect(200);
}

describe('Redis modes', () => {
  describe('Sentinel (REDIS_SENTINELS), with a password', () => {
    let sentinel: TestRedisSentinel;
    beforeAll(async () => {
      sentinel = await TestRedisSentinel.start(PASSWORD);
    }, 60_000);
    afterAll(() => sentinel?.stop());

    it('counts, caches and invalidates through the primary, and keeps doing so after a failover', async () => {
      const env = {
        ...NO_MODE,
        REDIS_SENTINELS: sentinel.sentinels,
        REDIS_SENTINEL_NAME: sentinel.name,
        REDIS_PASSWORD: PASSWORD,
        RATE_LIMIT: '1000',
        // one window for the whole test (windows are aligned to the clock)
        RATE_LIMIT_WINDOW_SECONDS: '3600',
      };
      await withTestApp(env, async (t) => {
        const user = await createUser(t);
        const link = await addLink(t, user, { url: 'https://example.com/before' });
        await worksIn(t, user, link, 'https://example.com/one');
        // the link was cached on the sentinel's primary
        const primary = await sentinel.primaryPort();
        const cached = t.redis.key('link', link.alias);
        expect((await sentinel.cli(primary, 'exists', cached)).trim()).toBe('1');
        const left = await remaining(t, user);

        await sentinel.failover();
        expect(await sentinel.primaryPort()).not.toBe(primary);

        // the client finds the new primary; the count (replicated) goes on from where it was
        await eventually(
          async () => (await t.http().get('/health/ready')).status === 200,
          15_000,
          200,
        );
        await eventually(async () => t.app.get(CacheBus).live, 15_000);
        const after = await remaining(t, user);
        expect(after).toBeLessThan(left);
        await worksIn(t, user, link, 'https://example.com/two');
        // written on the new primary: the old one is a replica now and refuses writes
        expect(await sentinel.cli(primary, 'role')).toMatch(/^slave/);
      });
    }, 90_000);
  });

  describe('REDIS_PASSWORD', () => {
    it('one server (REDIS_URL without a password in it)', async () => {
      const redis = await TestRedis.start(PASSWORD);
      try {
        const env = { ...NO_MODE, REDIS_URL: redis.url, REDIS_PASSWORD: PASSWORD };
        await withTestApp(env, async (t) => {
          const user = await createUser(t);
          const link = await addLink(t, user, { url: 'https://example.com/single' });
          await worksIn(t, user, link, 'https://example.com/single-2');
        });
      } finally {
        await redis.stop();
      }
    }, 60_000);
  });

  describe('Redis Cluster (REDIS_CLUSTER_NODES), with a password', () => {
    let cluster: TestRedisCluster;
    let t: TestApp;
    let user: TestUser;
    beforeAll(async () => {
      cluster = await TestRedisCluster.start(3, PASSWORD);
      t = await createTestApp({
        ...NO_MODE,
        REDIS_CLUSTER_NODES: cluster.nodes,
        REDIS_PASSWORD: PASSWORD,
        RATE_LIMIT: '1000',
      });
      user = await createUser(t);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await cluster?.stop();
    });

    /** redis-cli on one node of the cluster: its output. */
    const cli = async (port: number, ...args: string[]) =>
      (
        await promisify(execFile)('redis-cli', [
          ...['--no-auth-warning', '-a', PASSWORD, '-p', String(port)],
          ...args,
        ])
      ).stdout;

    /** A connection to one node of the cluster. */
    const node = (port: number) => new Redis({ port, host: '127.0.0.1', password: PASSWORD });

    it('counts, caches and invalidates', async () => {
      const link = await addLink(t, user, { url: 'https://example.com/cluster' });
      await worksIn(t, user, link, 'https://example.com/cluster-2');
    });

    it('an invalidation lost with the cache bus connection is not served stale: the loss is seen and the caches reset', async () => {
      const link = await addLink(t, user, { url: 'https://example.com/bus-1' });
      // creation's own invalidation is repeated once, REPEAT_INVALIDATION_MS later: let it pass
      await new Promise((r) => setTimeout(r, REPEAT_INVALIDATION_MS + 200));
      await eventually(async () => t.app.get(CacheBus).live);
      expect((await visit(t, link.alias).expect(302)).headers.location).toBe(
        'https://example.com/bus-1',
      );
      // a change behind the app's back: only the invalidation sent below would tell it
      await t.db.query(`UPDATE links SET url = 'https://example.com/bus-2' WHERE id = $1`, [
        link.id,
      ]);
      await t.redis.client.del(t.redis.key('link', link.alias));
      expect((await visit(t, link.alias).expect(302)).headers.location).toBe(
        'https://example.com/bus-1',
      );
      // the node the bus listens on drops its connection and, in the same transaction, the
      // invalidation is published: it never reaches this app
      let killed = false;
      for (const port of cluster.ports) {
        const conn = node(port);
        const clients = (await conn.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
        // the one subscribed connection of this private cluster: the bus's
        const id = /^id=(\d+) .* sub=1 /m.exec(clients)?.[1];
        if (id) {
          const message = JSON.stringify({ c: 'link', k: [link.alias] });
          await conn
            .multi()
            .client('KILL', 'ID', id)
            .publish(t.app.get(CacheBus).channel, message)
            .exec();
          killed = true;
        }
        await conn.quit();
      }
      expect(killed).toBe(true);
      await eventually(
        async () => (await visit(t, link.alias)).headers.location === 'https://example.com/bus-2',
        5000,
        50,
      );
      await eventually(async () => t.app.get(CacheBus).live, 10_000);
    }, 30_000);

    it('a primary killed: requests keep answering (fail open, links from Postgres), readiness says so, and it all comes back', async () => {
      const link = await addLink(t, user, { url: 'https://example.com/down' });
      const down = cluster.ports[0];
      cluster.kill(down);
      try {
        await eventually(async () => (await t.http().get('/health/ready')).status === 503, 10_000);
        for (let i = 0; i < 3; i++) {
          const res = await t.http().get('/api/account').set(user.auth);
          expect(res.status).toBe(200);
          expect(res.body.data.id).toBe(user.id);
          expect((await visit(t, link.alias)).headers.location).toBe('https://example.com/down');
        }
      } finally {
        await cluster.restart(down);
      }
      // ready once every primary sees the cluster whole again, and it stays so
      await eventually(async () => (await t.http().get('/health/ready')).status === 200, 20_000);
      for (let i = 0; i < 5; i++) await t.http().get('/health/ready').expect(200);
      await eventually(async () => t.app.get(CacheBus).live, 10_000);
      await worksIn(t, user, link, 'https://example.com/up-again');
    }, 60_000);

    /** MOVED replies a node has given so far. */
    const moved = async (port: number) =>
      Number(/errorstat_MOVED:count=(\d+)/.exec(await cli(port, 'INFO', 'errorstats'))?.[1] ?? 0);

    /**
     * Moves `slot` with its keys from the primary serving it to another one, behind the client's
     * back (its slot map still names the old primary until it refreshes it).
     */
    async function moveSlot(slot: number): Promise<{ from: number; to: number }> {
      const serving = await owner(slot);
      const nodes = await Promise.all(
        cluster.ports.map(async (port) => ({
          port,
          id: (await cli(port, 'CLUSTER', 'MYID')).trim(),
        })),
      );
      const from = nodes.find((n) => n.port === serving);
      const to = nodes.find((n) => n.port !== serving);
      if (!from || !to) throw new Error('no owner of the slot found');
      await cli(to.port, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', from.id);
      await cli(from.port, 'CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', to.id);
      const keys = (await cli(from.port, 'CLUSTER', 'GETKEYSINSLOT', String(slot), '10000'))
        .split('\n')
        .filter(Boolean);
      if (keys.length)
        await cli(
          from.port,
          'MIGRATE',
          '127.0.0.1',
          String(to.port),
          '',
          '0',
          '5000',
          'AUTH',
          PASSWORD,
          'KEYS',
          ...keys,
        );
      for (const port of cluster.ports)
        await cli(port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', to.id);
      return { from: from.port, to: to.port };
    }

    /** The port of the primary serving `slot`, as the cluster says. */
    async function owner(slot: number): Promise<number> {
      const reply = await cli(cluster.ports[0], 'CLUSTER', 'NODES');
      for (const line of reply.split('\n')) {
        const fields = line.split(' ');
        if (!fields[2]?.includes('master')) continue;
        const port = Number(/:(\d+)@/.exec(fields[1])?.[1]);
        for (const range of fields.slice(8)) {
          const [lo, hi = lo] = range.split('-').map(Number);
          if (slot >= lo && slot <= hi) return port;
        }
      }
      throw new Error(`slot ${slot} has no primary`);
    }

    it('a slot moved to another primary: the batched reads follow MOVED through the cluster client, then go to the new primary', async () => {
      const redis = t.app.get(RedisService);
      const client = redis.client as Cluster;
      const key = redis.slotKey(['moving'], 'k');
      await client.set(key, 'v1');
      expect(await redis.reads.get(key)).toBe('v1');
      const slot = keySlot(key);
      const { from, to } = await moveSlot(slot);
      const movedBefore = await moved(from);
      // the client still places the slot on `from`: asked there, answered MOVED, read again
      expect(await redis.reads.get(key)).toBe('v1');
      // (MOVED to this read, and to the cluster client's, whose map was as old)
      const movedAfter = await moved(from);
      expect(movedAfter).toBeGreaterThan(movedBefore);
      // once the client refreshed its map, the reads go to `to` at once
      await eventually(async () => client.slots[slot]?.[0] === `127.0.0.1:${to}`);
      await client.set(key, 'v2');
      const batch = await Promise.all([redis.reads.get(key), redis.reads.get(key)]);
      expect(batch).toEqual(['v2', 'v2']);
      expect(await moved(from)).toBe(movedAfter);
    });

    it('a statistics partition moved to another primary: the flush and the pending counts follow MOVED, nothing is lost or doubled', async () => {
      const link = await addLink(t, user, { url: 'https://example.com/moving-stats' });
      const recorder = t.app.get(VisitRecorder);
      const clicks = async () => (await readStats(t, link.id)).clicks;
      // (a user's first visit is recorded on its own, once the user's clicks cap is known)
      await visit(t, link.alias).expect(302);
      await eventually(async () => (await clicks()) === 1);
      const { from, to } = await moveSlot(keySlot(statsKeys(t).of(link.id).base));
      const movedBefore = await moved(from);
      for (let i = 0; i < 3; i++) await visit(t, link.alias).expect(302);
      // the flush's chunk goes to `from`, answered MOVED, and is written again where the slot is
      await recorder.flush();
      await eventually(async () => (await clicks()) === 4);
      expect(await moved(from)).toBeGreaterThan(movedBefore);
      // the counts live on the new primary only
      const pending = statsKeys(t).pending(link.id);
      const conn = node(to);
      try {
        expect(await conn.exists(pending)).toBe(1);
      } finally {
        conn.disconnect();
      }
      await foldStats(t);
      expect(await clicks()).toBe(4);
    });
  });
});
