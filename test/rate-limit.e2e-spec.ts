import { createTestApp, createUser, expectError, TestApp } from './support/app';
import { deleteKeys, scanKeys } from './support/redis';

/** Windows are aligned to the minute: start a burst at least 3 s before the next boundary. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3000) await new Promise((r) => setTimeout(r, left + 50));
}

describe('rate limit (budget 5 per window for this suite)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT: '5', RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(() => t.close());

  it('counts per key, sets the headers, then answers 429 with Retry-After', async () => {
    const u = await createUser(t);
    await awayFromWindowEdge();
    const before = Math.floor(Date.now() / 1000);
    for (let i = 1; i <= 5; i++) {
      const res = await t.http().get('/api/account').set(u.auth).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(before);
      expect(reset).toBeLessThanOrEqual(before + 60);
      expect(reset % 60).toBe(0); // windows are aligned to the minute: the same on every replica
    }
    const res = await t.http().get('/api/account').set(u.auth);
    expectError(res, 429, /Rate limit/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');

    // another key has its own budget
    const other = await createUser(t);
    expect((await t.http().get('/api/account').set(other.auth)).status).toBe(200);
  });

  it('counts requests without a valid key per client IP, errors included', async () => {
    await deleteKeys(
      t.redis.client,
      await scanKeys(t.redis.client, `${t.redis.key('rl', 'api', 'ip')}*`),
    );
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await t.http().get('/api/account').set('Authorization', 'Bearer wrong')).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('every concurrent request of a window reports that window as its Reset, and a count of its own', async () => {
    const u = await createUser(t);
    const many = await createTestApp({ RATE_LIMIT: '1000' });
    try {
      await awayFromWindowEdge();
      const rs = await Promise.all(
        Array.from({ length: 200 }, () => many.http().get('/api/account').set(u.auth)),
      );
      expect(new Set(rs.map((r) => r.headers['x-ratelimit-reset'])).size).toBe(1);
      // requests counted together (one turn of the event loop) still get one count each
      expect(
        rs.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 200 }, (_, i) => 800 + i));
    } finally {
      await many.close();
    }
  });

  it('across window boundaries, each response names the window that counted it (2 s windows, two replicas)', async () => {
    const a = await createTestApp({ RATE_LIMIT: '40', RATE_LIMIT_WINDOW_SECONDS: '2' });
    const b = await createTestApp({ RATE_LIMIT: '40', RATE_LIMIT_WINDOW_SECONDS: '2' });
    try {
      const u = await createUser(a);
      const labelled = new Map<string, { ok: number; all: number }>();
      const until = Date.now() + 4500; // crosses at least two boundaries
      await Promise.all(
        Array.from({ length: 16 }, async (_, i) => {
          while (Date.now() < until) {
            const r = await (i % 2 ? a : b).http().get('/api/account').set(u.auth);
            const reset = String(r.headers['x-ratelimit-reset']);
            const w = labelled.get(reset) ?? { ok: 0, all: 0 };
            w.all += 1;
            if (r.status === 200) w.ok += 1;
            labelled.set(reset, w);
          }
        }),
      );
      expect(labelled.size).toBeGreaterThanOrEqual(2);
      for (const [reset, w] of labelled) {
        expect([reset, w.ok <= 40]).toEqual([reset, true]);
        // Redis's own count for that window equals the responses that name it
        const counted = await a.redis.client.get(
          `${a.redis.key('rl', 'api', `user:${u.id}`)}:${Number(reset) / 2}`,
        );
        expect([reset, Number(counted)]).toEqual([reset, w.all]);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('is shared by two api replicas on one Redis', async () => {
    const second = await createTestApp({ RATE_LIMIT: '5' });
    try {
      const u = await createUser(t);
      await awayFromWindowEdge();
      const codes: number[] = [];
      for (let i = 0; i < 6; i++)
        codes.push((await (i % 2 ? second : t).http().get('/api/account').set(u.auth)).status);
      expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await second.close();
    }
  });
});
