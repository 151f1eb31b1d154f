import { request as httpRequest } from 'node:http';

import { randomString } from '@app/common';

import { startBuilt, waitHealthy } from './support/process';

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
});
