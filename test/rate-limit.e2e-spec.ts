import { createTestApp, createUser, expectError, TestApp } from './support/app';

describe('rate limit (budget 5 per window for this suite)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT: '5', RATE_LIMIT_WINDOW_SECONDS: '60' });
  });
  afterAll(() => t.close());

  it('counts per key, sets the headers, then answers 429 with Retry-After', async () => {
    const u = await createUser(t);
    const before = Math.floor(Date.now() / 1000);
    for (let i = 1; i <= 5; i++) {
      const res = await t.http().get('/api/account').set(u.auth).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(before);
      expect(reset).toBeLessThanOrEqual(before + 61);
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
    await t.redis.client.del(t.redis.key('rl', 'api', 'ip:::ffff:127.0.0.1'), t.redis.key('rl', 'api', 'ip:127.0.0.1'));
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.http().get('/api/account').set('Authorization', 'Bearer wrong')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('is shared by two api replicas on one Redis', async () => {
    const second = await createTestApp({ RATE_LIMIT: '5' });
    try {
      const u = await createUser(t);
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) codes.push((await (i % 2 ? second : t).http().get('/api/account').set(u.auth)).status);
      expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await second.close();
    }
  });
});
