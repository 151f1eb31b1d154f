import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { AppConfig } from '@app/config';

import { QrImageStore } from '../apps/worker/src/qr/qr-image-store';
import { createTestApp, createUser, TestApp, TestUser } from './support/app';
import { startBuilt } from './support/process';
import { decodeQr } from './support/qr';
import { eventually } from './support/stats';

/**
 * The real worker process (dist) rendering QR codes: killed with SIGKILL mid-batch, it leaves no
 * half-written image in place and the restarted worker renders every code once; stopped with
 * SIGTERM, it lets the renders in flight finish before it exits 0.
 */
describe('worker faults while rendering QR codes', () => {
  let t: TestApp;
  let user: TestUser;
  const dir = () => join(process.env.STORAGE_DIR as string, 'qr');
  const status = async (ids: number[]) =>
    (await t.db.query(
      `SELECT status, count(*)::int AS n FROM qr_codes WHERE id = ANY($1::int[]) GROUP BY status`,
      [ids],
    )) as Array<{
      status: string;
      n: number;
    }>;
  const ready = async (ids: number[]) =>
    (await status(ids)).find((r) => r.status === 'ready')?.n ?? 0;
  const addMany = async (n: number, tag: string) => {
    const out: Array<{ id: number; code: string }> = [];
    for (let i = 0; i < n; i++) {
      const res = await t
        .http()
        .post('/api/qr/add')
        .set(user.auth)
        .send({ type: 'text', data: `${tag} ${i} ${'x'.repeat(200)}`, foreground: 'rgb(20,40,90)' })
        .expect(200);
      out.push({ id: res.body.id, code: (res.body.link as string).split('/').pop() as string });
    }
    return out;
  };

  beforeAll(async () => {
    t = await createTestApp();
    user = await createUser(t);
  });
  afterAll(() => t.close());

  it('SIGKILL mid-batch: after a restart every code is ready once, every image scans, no partial file is served', async () => {
    const codes = await addMany(60, 'kill');
    const ids = codes.map((c) => c.id);
    const first = await startBuilt('worker', { QR_CONCURRENCY: '2', LOG_LEVEL: 'warn' });
    await eventually(async () => (await ready(ids)) >= 5, 30_000, 20);
    // WORKER_NICE (10): every thread of the process (render threads too) yields to the api
    try {
      const niceness = (stat: string) =>
        Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      const tasks = await readdir(`/proc/${first.child.pid}/task`);
      const nice = await Promise.all(
        tasks.map(async (t) =>
          niceness(await readFile(`/proc/${first.child.pid}/task/${t}/stat`, 'utf8')),
        ),
      );
      expect(nice.length).toBeGreaterThan(4);
      expect(new Set(nice)).toEqual(new Set([10]));
    } catch (err) {
      first.child.kill('SIGKILL');
      throw err;
    }
    first.child.kill('SIGKILL');
    await first.exited;
    const partial = await ready(ids);
    expect(partial).toBeLessThan(60); // killed mid-batch

    const second = await startBuilt('worker', { QR_CONCURRENCY: '2', LOG_LEVEL: 'warn' });
    try {
      await eventually(async () => (await ready(ids)) === 60, 60_000, 100);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    expect(await status(ids)).toEqual([{ status: 'ready', n: 60 }]);
    const files = await readdir(dir());
    for (const { code } of codes) {
      expect(files.filter((f) => f === `${code}.png` || f === `${code}.svg`).sort()).toEqual([
        `${code}.png`,
        `${code}.svg`,
      ]);
      const png = await readFile(join(dir(), `${code}.png`));
      expect((await decodeQr(png)).text).toBe(`http://short.test/q/${code}`);
      const served = await t.http().get(`/q/${code}.png`).set('Host', 'short.test').expect(200);
      expect(Buffer.compare(served.body, png)).toBe(0);
    }
    // Whatever the kill left half-written sits under a hidden temporary name (never served), and
    // the sweep removes such leftovers once they are older than any render can take.
    const temps = files.filter((f) => f.endsWith('.tmp'));
    expect(temps.every((f) => f.startsWith('.'))).toBe(true);
    const store = new QrImageStore({ STORAGE_DIR: process.env.STORAGE_DIR } as AppConfig);
    expect(await store.removeStaleTemporaries(10 * 60_000)).toBe(0); // too young to be abandoned
    expect(await store.removeStaleTemporaries(10 * 60_000, Date.now() + 11 * 60_000)).toBe(
      temps.length,
    );
    expect((await readdir(dir())).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('SIGTERM: the renders in flight finish, then the worker exits 0', async () => {
    const codes = await addMany(40, 'term');
    const ids = codes.map((c) => c.id);
    const worker = await startBuilt('worker', { QR_CONCURRENCY: '2', LOG_LEVEL: 'warn' });
    await eventually(async () => (await ready(ids)) >= 3, 30_000, 20);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    // nothing was left half-done: every code is either ready with both files, or still pending
    const rows: Array<{ status: string }> = await t.db.query(
      `SELECT status FROM qr_codes WHERE id = ANY($1::int[])`,
      [ids],
    );
    expect(rows.every((r) => r.status === 'ready' || r.status === 'pending')).toBe(true);
    const files = await readdir(dir());
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const readyCodes = await t.db.query(
      `SELECT l.alias FROM qr_codes q JOIN links l ON l.id = q.link_id WHERE q.id = ANY($1::int[]) AND q.status = 'ready'`,
      [ids],
    );
    for (const { alias } of readyCodes)
      expect(files).toEqual(expect.arrayContaining([`${alias}.png`, `${alias}.svg`]));
    const active = await t.redis.client.llen(`${t.redis.prefix}:bull:qr-render:active`);
    expect(active).toBe(0);
  }, 120_000);
});
