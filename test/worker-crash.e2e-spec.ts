import { createPlan, createTestApp, createUser, TestApp, TestUser } from './support/app';
import { startBuilt } from './support/process';
import { insertLink, uniq } from './support/resources';
import { dirtyLinks, eventually, foldStats, inflightBatches, recordVisit } from './support/stats';

/**
 * The real worker process (dist) is killed with SIGKILL at random moments while it folds visit
 * counters, and restarted, while visits keep arriving. Whatever step each kill interrupts, the
 * totals in Postgres end up exactly equal to the visits recorded: nothing lost, nothing twice.
 */
describe('worker killed with SIGKILL while folding', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createUser(t, { planId: await createPlan(t, { clicks: 0 }) });
  });
  afterAll(() => t.close());

  it('every counted visit is in Postgres exactly once', async () => {
    const links: number[] = [];
    for (let i = 0; i < 60; i++)
      links.push(
        (await insertLink(t, owner.id, { alias: `crash${Date.now().toString(36)}x${i}` })).id,
      );
    const expected = new Map<number, number>(links.map((id) => [id, 0]));
    let seq = 0;
    const burst = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const linkId = links[seq % links.length];
        seq += 1;
        if (
          await recordVisit(t, { linkId, userId: owner.id, ip: `10.0.${seq % 250}.${seq % 7}` })
        ) {
          expected.set(linkId, (expected.get(linkId) ?? 0) + 1);
        }
      }
    };
    const batches = async () =>
      Number((await t.db.query(`SELECT count(*) AS n FROM stat_batches`))[0].n);

    let killsAfterProgress = 0;
    for (let round = 0; round < 5; round++) {
      await burst(400);
      const before = await batches();
      const worker = await startBuilt('worker', { STATS_FOLD_SECONDS: '1', LOG_LEVEL: 'warn' });
      const feeding = burst(300);
      // once the worker has folded a batch (it is up, however loaded the machine), kill it at a
      // random moment of the folds that follow
      await eventually(async () => (await batches()) > before, 30_000, 50);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1500)));
      worker.child.kill('SIGKILL');
      await worker.exited;
      await feeding;
      killsAfterProgress += 1;
    }
    // A clean finish: whatever the kills left in flight is applied once.
    await foldStats(t);
    await foldStats(t);

    const rows: Array<{ link_id: number; clicks: string }> = await t.db.query(
      `SELECT link_id, clicks FROM link_stats_total WHERE link_id = ANY($1::int[])`,
      [links],
    );
    const stored = new Map(rows.map((r) => [r.link_id, Number(r.clicks)]));
    for (const id of links) expect([id, stored.get(id) ?? 0]).toEqual([id, expected.get(id)]);
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(3500);
    expect(await inflightBatches(t)).toEqual([]);
    expect(await dirtyLinks(t)).toEqual([]);
    // every kill interrupted a worker that was folding
    expect(killsAfterProgress).toBe(5);
  }, 90_000);
});

/**
 * The real worker process is killed with SIGKILL in the middle of an import, twice; the next one
 * resumes it after the rows already written: every row becomes exactly one link, and the
 * counters are exact (nothing counted twice as created, or as skipped).
 */
describe('worker killed with SIGKILL mid-import', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('resumes after the rows written: each row one link, exact counters', async () => {
    const u = await createUser(t, { planId: await createPlan(t, { links: 0 }) });
    const p = uniq('k');
    const rows = 20_000;
    const lines = ['url,alias'];
    for (let i = 0; i < rows; i++)
      lines.push(i % 10 ? `https://crash.example/${i},${p}${i}` : `https://crash.example/${i}`);
    const res = await t
      .http()
      .post('/api/import')
      .set(u.auth)
      .set('Content-Type', 'text/csv')
      .send(lines.join('\n'));
    expect(res.status).toBe(200);
    const id = res.body.id as number;
    const progress = async () =>
      (await t.http().get(`/api/import/${id}`).set(u.auth)).body.data as {
        status: string;
        total: number;
        created: number;
        skipped: number;
        failed: number;
      };

    let written = 0;
    for (let kill = 0; kill < 2; kill++) {
      const worker = await startBuilt('worker', { LOG_LEVEL: 'warn' });
      // kill it once it has written a few more batches
      await eventually(async () => (await progress()).total >= written + 1500, 60_000, 20);
      worker.child.kill('SIGKILL');
      await worker.exited;
      const now = await progress();
      expect(now.status).toBe('running');
      expect(now.total).toBeLessThan(rows);
      written = now.total;
    }
    const last = await startBuilt('worker', { LOG_LEVEL: 'warn' });
    try {
      await eventually(async () => (await progress()).status === 'done', 90_000, 200);
    } finally {
      last.child.kill('SIGTERM');
      await last.exited;
    }
    expect(await progress()).toMatchObject({
      status: 'done',
      total: rows,
      created: rows,
      skipped: 0,
      failed: 0,
    });
    const [{ n, distinct }] = await t.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT url)::int AS distinct FROM links WHERE user_id = $1`,
      [u.id],
    );
    expect([n, distinct]).toEqual([rows, rows]);
  }, 180_000);
});
