import { runMigrations } from '@app/database';
import { VisitRecorder } from '@app/stats';

import { createTestApp, createTestWorker, createUser, TestApp, TestUser } from './support/app';
import { insertLink } from './support/resources';
import { TestPgReplica } from './support/services';
import { BROWSER_UA, eventually, statsFold } from './support/stats';

/** What the standby replays behind the primary: well under the allowed lag. */
const APPLY_DELAY_MS = 1000;
const MAX_LAG_SECONDS = 3;

/**
 * Postgres read replicas (docs/scaling.md): the app runs against a primary of its own with an
 * asynchronous streaming standby replaying APPLY_DELAY_MS behind. A read is shown to come from
 * the standby by writing a row straight into the primary (no API request, so no writer mark) and
 * reading at once: the standby has not replayed it yet.
 */
describe('Postgres read replicas', () => {
  let pg: TestPgReplica;
  let t: TestApp;
  const name = 'linkmgmt_replicas';

  beforeAll(async () => {
    pg = await TestPgReplica.start(APPLY_DELAY_MS);
    await runMigrations(pg.primary.url(name));
    await pg.caughtUp();
    t = await createTestApp({
      DATABASE_URL: pg.primary.url(name),
      DATABASE_REPLICA_URLS: pg.standby.url(name),
      REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
    });
    await eventually(async () => (await replicaHealth()).status === 'up', 10_000);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await pg?.destroy();
  });

  const get = (user: TestUser, path: string) => t.http().get(path).set(user.auth);
  const listed = async (user: TestUser) =>
    (await get(user, '/api/urls?limit=100').expect(200)).body.data.urls.map(
      (u: { id: number }) => u.id,
    ) as number[];
  /** Link ids of the CSV export (first column), in its order. */
  const exported = async (user: TestUser) => {
    const res = await get(user, '/api/urls/export').expect(200);
    return res.text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]));
  };
  const replicaHealth = async (): Promise<{ status: string; lag: number | null }> => {
    const res = await t.http().get('/health/ready').expect(200);
    return res.body.data.replicas[0];
  };
  /** A user that exists on the standby too. */
  const replicatedUser = async () => {
    const user = await createUser(t, { plan: 'Pro' });
    await pg.caughtUp();
    return user;
  };

  it('lists and statistics are read from the replica', async () => {
    const user = await replicatedUser();
    const old = await insertLink(t, user.id);
    await pg.caughtUp();
    expect(await listed(user)).toEqual([old.id]);

    const fresh = await insertLink(t, user.id);
    await t.db.query(`INSERT INTO link_stats_total (link_id, clicks, uniques) VALUES ($1, 5, 4)`, [
      old.id,
    ]);
    await t.db.query(
      `INSERT INTO link_stats_daily (link_id, day, clicks, uniques) VALUES ($1, CURRENT_DATE, 5, 4)`,
      [old.id],
    );
    // the standby has not replayed these yet: the list, the link's statistics, its range and the
    // links export are read there
    expect(await listed(user)).toEqual([old.id]);
    expect(await exported(user)).toEqual([old.id]);
    expect((await get(user, `/api/url/${old.id}`).expect(200)).body.data.clicks).toBe(0);
    const range = await get(user, `/api/url/${old.id}/stats`).expect(200);
    expect(range.body.data.clicks).toBe(0);

    await pg.caughtUp();
    expect(await listed(user)).toEqual([fresh.id, old.id]);
    expect(await exported(user)).toEqual([fresh.id, old.id]);
    expect((await get(user, `/api/url/${old.id}`).expect(200)).body.data.clicks).toBe(5);
    expect((await get(user, `/api/url/${old.id}/stats`).expect(200)).body.data.clicks).toBe(5);

    const [{ n }] = await pg.standbyQuery(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'linkmgmt-replica'`,
    );
    expect(n).toBeGreaterThan(0);
  });

  it("a user who just wrote reads their write from the primary; another user's list still comes from the replica", async () => {
    const writer = await replicatedUser();
    const other = await replicatedUser();
    const added = await t
      .http()
      .post('/api/url/add')
      .set(writer.auth)
      .send({ url: 'https://example.com/just-written' })
      .expect(200);
    const othersLink = await insertLink(t, other.id);
    expect(await listed(writer)).toEqual([added.body.id]);
    const details = await get(writer, `/api/url/${added.body.id}`).expect(200);
    expect(details.body.details.longurl).toBe('https://example.com/just-written');
    // the other user wrote nothing through the api: their read goes to the standby
    expect(await listed(other)).toEqual([]);
    await pg.caughtUp();
    expect(await listed(other)).toEqual([othersLink.id]);
  });

  it('statistics stay exact across a fold while the replica lags: nothing lost, nothing doubled', async () => {
    const user = await replicatedUser();
    const link = await insertLink(t, user.id);
    await pg.caughtUp();
    const visit = (ip: string) =>
      t.app.get(VisitRecorder).recordNow({
        linkId: link.id,
        userId: user.id,
        method: 'GET',
        ip,
        userAgent: BROWSER_UA,
        referer: undefined,
      });
    const clicks = async () => {
      const [one, range] = await Promise.all([
        get(user, `/api/url/${link.id}`).expect(200),
        get(user, `/api/url/${link.id}/stats`).expect(200),
      ]);
      expect(range.body.data.clicks).toBe(one.body.data.clicks);
      return one.body.data.clicks as number;
    };
    // visits other tests left pending (in memory or in Redis) are folded first, so the fold
    // below folds these alone
    await t.app.get(VisitRecorder).flush();
    await statsFold(t).fold();
    for (const ip of ['8.8.8.1', '8.8.8.2', '8.8.8.3']) await visit(ip);
    expect(await clicks()).toBe(3);

    // applied on the primary, not replayed by the standby yet
    expect((await statsFold(t).fold()).clicks).toBe(3);
    const [{ applied }] = await pg.standbyQuery(
      `SELECT count(*)::int AS applied FROM link_stats_total WHERE link_id = ${link.id}`,
      name,
    );
    expect(applied).toBe(0);
    expect(await clicks()).toBe(3);

    // a second batch claimed and not applied, and a visit still pending
    await visit('8.8.8.4');
    await statsFold(t).claimOnly();
    await visit('8.8.8.5');
    expect(await clicks()).toBe(5);

    await pg.caughtUp();
    expect(await clicks()).toBe(5);
    await statsFold(t).fold();
    expect(await clicks()).toBe(5);
    await pg.caughtUp();
    expect(await clicks()).toBe(5);
  });

  it("the worker's own fold keeps what it applied for a replica that has not replayed it", async () => {
    const user = await replicatedUser();
    const link = await insertLink(t, user.id);
    await pg.caughtUp();
    // pending before the worker starts: its first fold takes them in one batch
    for (const n of [1, 2, 3, 4])
      await t.app.get(VisitRecorder).recordNow({
        linkId: link.id,
        userId: user.id,
        method: 'GET',
        ip: `8.8.4.${n}`,
        userAgent: BROWSER_UA,
        referer: undefined,
      });
    const worker = await createTestWorker({
      DATABASE_URL: pg.primary.url(name),
      DATABASE_REPLICA_URLS: pg.standby.url(name),
      REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
      STATS_FOLD_SECONDS: '1',
    });
    try {
      // folded by the worker on its schedule: on the primary at once, on the standby 1 s later
      await eventually(
        async () => {
          const [row] = await t.db.query(
            `SELECT clicks::int AS clicks FROM link_stats_total WHERE link_id = $1`,
            [link.id],
          );
          return row?.clicks === 4;
        },
        10_000,
        20,
      );
      const stats = await get(user, `/api/url/${link.id}`).expect(200);
      const [{ replayed }] = await pg.standbyQuery(
        `SELECT COALESCE(SUM(clicks), 0)::int AS replayed FROM link_stats_total WHERE link_id = ${link.id}`,
        name,
      );
      expect(stats.body.data.clicks).toBe(4);
      // (read before the standby replayed the fold)
      expect(replayed).toBe(0);
      await pg.caughtUp();
      expect((await get(user, `/api/url/${link.id}`).expect(200)).body.data.clicks).toBe(4);
    } finally {
      await worker.close();
    }
  });

  it('a replica lagging more than REPLICA_MAX_LAG_SECONDS is skipped until it catches up', async () => {
    const user = await replicatedUser();
    await pg.standby.setApplyDelay((MAX_LAG_SECONDS + 3) * 1000);
    try {
      const link = await insertLink(t, user.id);
      await eventually(async () => (await replicaHealth()).status === 'lagging', 10_000);
      expect((await replicaHealth()).lag).toBeGreaterThan(MAX_LAG_SECONDS);
      // served by the primary meanwhile
      expect(await listed(user)).toEqual([link.id]);
    } finally {
      await pg.standby.setApplyDelay(APPLY_DELAY_MS);
    }
    await eventually(async () => (await replicaHealth()).status === 'up', 15_000);
    const replayed = await insertLink(t, user.id);
    expect(await listed(user)).not.toContain(replayed.id);
  });

  it('a replica that is down is skipped, readiness stays 200 and reports it; it is used again once back', async () => {
    const user = await replicatedUser();
    await pg.standby.stop('immediate');
    try {
      // the first read may still pick it: its failure falls back to the primary
      const link = await insertLink(t, user.id);
      expect(await listed(user)).toEqual([link.id]);
      expect(await replicaHealth()).toEqual({
        name: expect.any(String),
        status: 'down',
        lag: null,
      });
      expect((await get(user, `/api/url/${link.id}`).expect(200)).body.data.clicks).toBe(0);
    } finally {
      await pg.standby.start();
    }
    await eventually(async () => (await replicaHealth()).status === 'up', 15_000);
    const fresh = await insertLink(t, user.id);
    expect(await listed(user)).not.toContain(fresh.id);
  });
});
