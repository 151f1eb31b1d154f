import { request as httpRequest } from 'node:http';

import { randomString } from '@app/common';
import { StatsKeys } from '@app/stats';

import { startBuilt, waitHealthy } from './support/process';
import { testRedis } from './support/redis';
import { BROWSER_UA } from './support/stats';

/** Graceful shutdown of the real api process: in-flight requests finish, then it exits 0. */
describe('graceful shutdown', () => {
  it('api: a request in flight at SIGTERM completes with 200, new connections are refused, exit code 0', async () => {
    const key = randomString(40);
    const api = await startBuilt('api', {
      ADMIN_EMAIL: `sd${Date.now()}@example.com`,
      ADMIN_API_KEY: key,
      ADMIN_PASSWORD: 'shutdown1',
    });
    try {
      await waitHealthy(api.url);
      const body = JSON.stringify({ password: 'another-pass' });
      // Headers and half the body now; the rest after SIGTERM: the request is in flight.
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          `${api.url}/api/account/update`,
          {
            method: 'PUT',
            headers: {
              Authorization: `Bearer ${key}`,
              'Content-Type': 'application/json',
              'Content-Length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (d) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 5));
        setTimeout(() => {
          api.child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(5)), 300);
        }, 300);
      });
      const res = await response;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ error: 0, message: expect.any(String) });
      expect(await api.exited).toBe(0);
      await expect(fetch(`${api.url}/health`)).rejects.toThrow();
      expect(api.output()).not.toContain(key);
    } finally {
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
    }
  }, 40_000);
  it('api: an open live stream ends with an end event at SIGTERM, and the process exits at once (not after the 10 s cut)', async () => {
    const key = randomString(40);
    const api = await startBuilt('api', {
      ADMIN_EMAIL: `sdl${Date.now()}@example.com`,
      ADMIN_API_KEY: key,
      ADMIN_PASSWORD: 'shutdown1',
    });
    try {
      await waitHealthy(api.url);
      let text = '';
      const ended = new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${api.url}/api/stats/live`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        req.on('response', (res) => {
          expect(res.statusCode).toBe(200);
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
            if (text.includes(': connected')) api.child.kill('SIGTERM');
          });
          res.on('end', () => resolve());
        });
        req.on('error', reject);
        req.end();
      });
      const started = Date.now();
      await ended;
      expect(text).toContain('event: end\ndata: {"reason":"the server is shutting down"}');
      expect(await api.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
    }
  }, 40_000);
  it('api: visits aggregated in memory are written to Redis before the process exits on SIGTERM', async () => {
    const key = randomString(40);
    const api = await startBuilt('api', {
      ADMIN_EMAIL: `sdv${Date.now()}@example.com`,
      ADMIN_API_KEY: key,
      ADMIN_PASSWORD: 'shutdown1',
    });
    const redis = testRedis();
    try {
      await waitHealthy(api.url);
      const created = await fetch(`${api.url}/api/url/add`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/sigterm' }),
      }).then((r) => r.json() as Promise<{ id: number; shorturl: string }>);
      const visit = () =>
        fetch(`${api.url}${new URL(created.shorturl).pathname}`, {
          redirect: 'manual',
          headers: { Host: 'short.test', 'User-Agent': BROWSER_UA },
        }).then((r) => expect(r.status).toBe(302));
      await visit(); // the owner's (absent) cap is looked up and cached: later visits aggregate
      await new Promise((r) => setTimeout(r, 300));
      await Promise.all(Array.from({ length: 20 }, visit));
      api.child.kill('SIGTERM'); // well within the aggregation window (STATS_FLUSH_MS, 500 ms)
      expect(await api.exited).toBe(0);
      const pending = await redis.hgetall(
        new StatsKeys(
          { key: (...parts) => [process.env.REDIS_PREFIX, ...parts].join(':') },
          Number(process.env.STATS_PARTITIONS ?? 16),
        ).pending(created.id),
      );
      expect(Object.values(pending).reduce((sum, n) => sum + Number(n), 0)).toBe(21);
    } finally {
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
      await redis.quit();
    }
  }, 40_000);
});
