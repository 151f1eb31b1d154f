import { AsyncLocalStorage } from 'node:async_hooks';

import { Logger } from '@nestjs/common';

import { runMigrations } from '@app/database';

import { createTestApp, createUser } from './support/app';
import { startBuilt, waitHealthy } from './support/process';
import { TestPostgres, TestRedis } from './support/services';

/** Nest's static log buffer (bufferLogs): what it holds is never written. */
const buffered = () =>
  (Logger as unknown as { logBuffer: unknown[]; isBufferAttached: boolean }).logBuffer.length;

/**
 * The application's own log lines (Nest Logger: 5xx causes, Redis fail-open, the admin bootstrap)
 * reach stdout of the real process, as JSON lines, and never pile up in memory.
 */
describe('application logs', () => {
  it('the built api writes its start-up, 5xx-cause and fail-open lines to stdout', async () => {
    const pg = await TestPostgres.start();
    const redis = await TestRedis.start();
    const database = pg.url('logs');
    await runMigrations(database);
    const key = `logs-${'k'.repeat(40)}`;
    const api = await startBuilt('api', {
      DATABASE_URL: database,
      REDIS_URL: redis.url,
      REDIS_CLUSTER_NODES: '',
      ADMIN_EMAIL: `logs${Date.now()}@example.com`,
      ADMIN_API_KEY: key,
      AUTH_CACHE_SECONDS: '0',
      LOG_LEVEL: 'info',
    });
    try {
      await waitHealthy(api.url);
      const lines = () =>
        api
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map(
            (l) =>
              JSON.parse(l) as {
                level: number;
                msg?: string;
                context?: string;
                err?: { message?: string };
              },
          );
      // the admin bootstrap's Logger line (written at start, not kept in a buffer)
      expect(
        lines().some((l) => l.context === 'AdminBootstrap' && /created/.test(l.msg ?? '')),
      ).toBe(true);

      // Redis down: the rate limit fails open, and says so
      await redis.stop();
      const open = await fetch(`${api.url}/api/account`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(open.status).toBe(200);
      await waitFor(() =>
        lines().some((l) => l.level === 40 && /rate limit not enforced/.test(l.msg ?? '')),
      );

      // Postgres down: a 503, and its cause logged at error level
      await pg.stop('immediate');
      const down = await fetch(`${api.url}/api/account`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(down.status).toBe(503);
      await waitFor(() =>
        lines().some((l) => l.level === 50 && l.msg === 'request failed' && !!l.err?.message),
      );
    } finally {
      api.child.kill('SIGKILL');
      await api.exited;
      await redis.stop().catch(() => undefined);
      await pg.destroy();
    }
  }, 60_000);

  it('each request Nest serves is one JSON line (method, redacted URL, status); not /health, not short links, no key', async () => {
    const key = `reqlog-${'r'.repeat(40)}`;
    const api = await startBuilt('api', {
      ADMIN_EMAIL: `reqlog${Date.now()}@example.com`,
      ADMIN_API_KEY: key,
      LOG_LEVEL: 'info',
    });
    try {
      await waitHealthy(api.url);
      const auth = { Authorization: `Bearer ${key}` };
      expect((await fetch(`${api.url}/api/account`, { headers: auth })).status).toBe(200);
      await fetch(`${api.url}/api/urls?key=leaked-${key}`);
      await fetch(`${api.url}/auth/login/token-that-must-not-be-logged`, { redirect: 'manual' });
      await fetch(`${api.url}/health`);
      await fetch(`${api.url}/no-such-alias`, { redirect: 'manual' });
      type Line = {
        msg?: string;
        req?: { id?: unknown; method?: string; url?: string };
        res?: { statusCode?: number };
      };
      const requests = () =>
        api
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Line)
          .filter((l) => l.req && l.res);
      await waitFor(() => requests().length >= 3);
      await new Promise((r) => setTimeout(r, 300));
      expect(
        requests().map((l) => [
          l.msg,
          l.req?.method,
          l.req?.url,
          l.res?.statusCode,
          typeof l.req?.id,
        ]),
      ).toEqual([
        ['request completed', 'GET', '/api/account', 200, 'number'],
        ['request completed', 'GET', '/api/urls?key=[redacted]', 401, 'number'],
        ['request completed', 'GET', '/auth/login/[redacted]', expect.any(Number), 'number'],
      ]);
      expect(api.output()).not.toContain(key.slice(-20));
      expect(api.output()).not.toContain('token-that-must-not-be-logged');
    } finally {
      api.child.kill('SIGKILL');
      await api.exited;
    }
  }, 60_000);

  it('no request runs in an AsyncLocalStorage context (it would hook every promise of the process)', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    const t = await createTestApp();
    try {
      const user = await createUser(t);
      expect((await t.http().get('/api/account').set(user.auth)).status).toBe(200);
      expect((await t.http().get('/health')).status).toBe(200);
      expect((await t.http().get('/api/urls').set(user.auth)).status).toBe(200);
      expect(run).not.toHaveBeenCalled();
      expect(enterWith).not.toHaveBeenCalled();
      // the spies see a context when one is entered
      new AsyncLocalStorage<number>().run(1, () => undefined);
      expect(run).toHaveBeenCalledTimes(1);
    } finally {
      run.mockRestore();
      enterWith.mockRestore();
      await t.close();
    }
  });

  it('nothing is held in Nest’s log buffer after start, however much is logged', async () => {
    const t = await createTestApp();
    try {
      expect(buffered()).toBe(0);
      const logger = new Logger('Test');
      for (let i = 0; i < 1000; i++) logger.error(`error ${i}`);
      expect(buffered()).toBe(0);
    } finally {
      await t.close();
    }
  });
});

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('log line not written');
    await new Promise((r) => setTimeout(r, 50));
  }
}
