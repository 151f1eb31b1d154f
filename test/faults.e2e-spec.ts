import { runMigrations } from '@app/database';

import { createTestApp, createUser, expectError, TestApp, TestUser } from './support/app';
import { TestPostgres, TestRedis } from './support/services';
import { insertLink } from './support/resources';
import { eventually, recordVisit } from './support/stats';

/**
 * Faults against real services: each test runs its own Redis / Postgres on a free port, so it
 * can stop and restart them while the shared ones keep serving the other suites.
 */
describe('faults', () => {
  describe('Redis goes down mid-traffic', () => {
    let redis: TestRedis;
    let t: TestApp;
    let user: TestUser;

    beforeAll(async () => {
      redis = await TestRedis.start();
      // this server alone, whatever Redis the run uses (TEST_REDIS=cluster)
      t = await createTestApp({
        REDIS_URL: redis.url,
        REDIS_CLUSTER_NODES: '',
        AUTH_CACHE_SECONDS: '300',
      });
      user = await createUser(t);
    });
    afterAll(async () => {
      await redis.start().catch(() => undefined);
      await t.close();
      await redis.stop();
    });

    it('the API keeps answering (rate limit fails open), and counting resumes when Redis is back', async () => {
      const { id: linkId } = await insertLink(t, user.id, {
        alias: `flt${Date.now().toString(36)}`,
      });
      expect(
        (await t.http().get('/api/account').set(user.auth)).headers['x-ratelimit-remaining'],
      ).toBe('2999');

      await redis.stop();
      // the key owner cache hears no invalidations now: it is not used (a change is seen at once)
      await t.db.query(`UPDATE users SET username = $1 WHERE id = $2`, [
        `${user.username}x`,
        user.id,
      ]);
      await eventually(
        async () =>
          (await t.http().get('/api/account').set(user.auth)).body.data?.username ===
          `${user.username}x`,
        3000,
        20,
      );
      for (let i = 0; i < 5; i++) {
        const res = await t.http().get('/api/account').set(user.auth);
        expect(res.status).toBe(200);
        expect(res.body.data.id).toBe(user.id);
        expect(res.headers['x-ratelimit-limit']).toBe('3000');
      }
      expect((await t.http().get('/health/ready')).status).toBe(503);
      expect(await recordVisit(t, { linkId, userId: user.id })).toBe(false);

      await redis.start();
      await eventually(async () => (await t.http().get('/health/ready')).status === 200, 15_000);
      await eventually(async () => recordVisit(t, { linkId, userId: user.id }), 10_000);
      const res = await t.http().get('/api/account').set(user.auth).expect(200);
      // a fresh Redis: the window starts again and is enforced again
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(3000);
    });
  });

  describe('Postgres restarts', () => {
    let pg: TestPostgres;
    let t: TestApp;
    let user: TestUser;

    beforeAll(async () => {
      pg = await TestPostgres.start();
      const url = pg.url('linkmgmt_fault');
      await runMigrations(url);
      t = await createTestApp({ DATABASE_URL: url });
      user = await createUser(t);
    }, 60_000);
    afterAll(async () => {
      await t?.close();
      await pg?.destroy();
    });

    it('answers 503 in the envelope while Postgres is down and recovers without a restart', async () => {
      const unseen = await createUser(t);
      expect((await t.http().get('/api/account').set(user.auth)).status).toBe(200);
      await pg.stop();
      const down = await t.http().get('/api/urls').set(user.auth);
      expectError(down, 503, /unavailable/i);
      expect(JSON.stringify(down.body)).not.toMatch(/ECONNREFUSED|postgres|SELECT|at /);
      // a key used in the last AUTH_CACHE_SECONDS still authenticates (its owner is cached), so
      // a call that needs nothing else still answers; a key not seen yet needs Postgres
      expect((await t.http().get('/api/account').set(user.auth)).body.data.id).toBe(user.id);
      expectError(await t.http().get('/api/account').set(unseen.auth), 503, /unavailable/i);
      expectError(await t.http().get('/health/ready'), 503, /postgres down/);
      expect((await t.http().get('/health')).status).toBe(200);

      await pg.start();
      await eventually(
        async () => (await t.http().get('/api/urls').set(unseen.auth)).status === 200,
        20_000,
        250,
      );
      expect((await t.http().get('/health/ready')).status).toBe(200);
    }, 60_000);
  });
});
