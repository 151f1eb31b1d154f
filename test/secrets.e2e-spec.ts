import { randomString } from '@app/common';

import { startBuilt, waitHealthy } from './support/process';

/**
 * Secrets never reach the logs: the real api process (dist) runs at LOG_LEVEL=trace while every
 * flow that carries a secret is exercised — admin key, user keys (good, wrong, expired-looking),
 * passwords (user creation, account update, a link's password form, sign-in), login-link tokens
 * (issue, redeem, reuse, opened by a browser), session cookies and CSRF tokens, secrets in bodies
 * of rejected requests and in query strings. Then everything the process printed is scanned for
 * each of them.
 */
describe('secrets never appear in logs or error bodies', () => {
  it('a full run at trace level prints no key, password or token', async () => {
    const adminKey = randomString(40);
    const adminPassword = `adm-${randomString(12)}`;
    const api = await startBuilt('api', {
      ADMIN_EMAIL: `secrets${Date.now()}@example.com`,
      ADMIN_PASSWORD: adminPassword,
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: 'trace',
      PUBLIC_URL: 'http://short.test',
    });
    const secrets: string[] = [adminKey, adminPassword];
    const bodies: string[] = [];
    try {
      await waitHealthy(api.url);
      const call = async (
        method: string,
        path: string,
        opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
      ) => {
        const res = await fetch(`${api.url}${path}`, {
          method,
          redirect: 'manual',
          headers: {
            ...(opts.key ? { Authorization: `Bearer ${opts.key}` } : {}),
            'Content-Type': 'application/json',
            ...opts.headers,
          },
          body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
        });
        const text = await res.text();
        bodies.push(text);
        return { status: res.status, text, json: () => JSON.parse(text) };
      };

      const userPassword = `usr-${randomString(12)}`;
      const created = await call('POST', '/api/user/add', {
        key: adminKey,
        body: {
          username: `sec${Date.now()}`,
          email: `sec${Date.now()}@example.com`,
          password: userPassword,
        },
      });
      expect(created.status).toBe(200);
      secrets.push(userPassword);
      const userId = created.json().data.id;
      const userKey = (await call('GET', `/api/user/${userId}`, { key: adminKey })).json().data
        .apikey as string;
      secrets.push(userKey);

      expect((await call('GET', '/api/account', { key: userKey })).status).toBe(200);
      const wrongKey = randomString(40);
      secrets.push(wrongKey);
      expect((await call('GET', '/api/account', { key: wrongKey })).status).toBe(401);
      expect((await call('GET', `/api/account?key=${wrongKey}&token=${wrongKey}`)).status).toBe(
        401,
      );

      const newPassword = `new-${randomString(12)}`;
      secrets.push(newPassword);
      expect(
        (
          await call('PUT', '/api/account/update', {
            key: userKey,
            body: { password: newPassword },
          })
        ).status,
      ).toBe(200);
      const badBody = `{"password": "${newPassword}-broken`;
      expect(
        (await call('PUT', '/api/account/update', { key: userKey, raw: badBody })).status,
      ).toBe(400);
      expect(
        (
          await call('PUT', '/api/account/update', {
            key: userKey,
            body: { password: newPassword, extra: adminPassword },
          })
        ).status,
      ).toBe(400);

      const login = await call('GET', `/api/user/login/${userId}`, { key: adminKey });
      const url = login.json().url as string;
      const token = url.split('/').pop() as string;
      secrets.push(token);
      const redeemed = await call('GET', `/auth/login/${token}`);
      expect(redeemed.status).toBe(200);
      expect(redeemed.json().data.apikey).toBe(userKey);
      expect((await call('GET', `/auth/login/${token}`)).status).toBe(410);

      const linkPassword = `lnk-${randomString(12)}`;
      secrets.push(linkPassword);
      const link = await call('POST', '/api/url/add', {
        key: userKey,
        body: { url: 'https://example.com/secret', password: linkPassword },
      });
      expect(link.status).toBe(200);
      const alias = (link.json().shorturl as string).split('/').pop();
      const form = (password: string) =>
        fetch(`${api.url}/${alias}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { Host: 'short.test', 'Content-Type': 'application/x-www-form-urlencoded' },
          body: `password=${encodeURIComponent(password)}`,
        });
      expect((await form(`${linkPassword}-wrong`)).status).toBe(401);
      expect((await form(linkPassword)).status).toBe(302);

      // sessions: the password, the cookie's token and the CSRF token
      const email = (await call('GET', '/api/account', { key: userKey })).json().data.email;
      const signIn = (password: string) =>
        fetch(`${api.url}/auth/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
      expect((await signIn(`${newPassword}-wrong`)).status).toBe(401);
      const signedIn = await signIn(newPassword);
      expect(signedIn.status).toBe(200);
      const cookie = (signedIn.headers.get('set-cookie') as string).split(';')[0];
      const csrf = ((await signedIn.json()) as { data: { csrf: string } }).data.csrf;
      secrets.push(cookie.split('=')[1], csrf);
      const session = { Cookie: cookie, 'X-CSRF-Token': csrf };
      expect((await call('GET', '/api/account', { headers: session })).status).toBe(200);
      expect(
        (await call('POST', '/api/url/add', { headers: session, body: { url: 'https://a.test/' } }))
          .status,
      ).toBe(200);
      expect(
        (
          await call('POST', '/api/url/add', {
            headers: { Cookie: cookie, 'X-CSRF-Token': `${csrf}x` },
            body: { url: 'https://a.test/' },
          })
        ).status,
      ).toBe(403);
      const browserLink = (await call('GET', `/api/user/login/${userId}`, { key: adminKey })).json()
        .url as string;
      secrets.push(browserLink.split('/').pop() as string);
      const opened = await fetch(browserLink.replace('http://short.test', api.url), {
        redirect: 'manual',
        headers: { Accept: 'text/html' },
      });
      expect(opened.status).toBe(302);
      secrets.push((opened.headers.get('set-cookie') as string).split(';')[0].split('=')[1]);
      expect((await call('DELETE', '/auth/session', { headers: session })).status).toBe(200);
      expect((await call('GET', '/auth/session', { headers: session })).status).toBe(401);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }

    const logs = api.output();
    expect(logs.length).toBeGreaterThan(1000); // trace logging really ran
    expect(logs).toContain('/api/user/login/'); // requests were logged
    for (const secret of secrets) {
      expect([secret.slice(0, 6), logs.includes(secret)]).toEqual([secret.slice(0, 6), false]);
      expect([secret.slice(0, 6), logs.includes(encodeURIComponent(secret))]).toEqual([
        secret.slice(0, 6),
        false,
      ]);
    }
    // Error bodies never echo a secret back (the redeemed login and the admin view are the
    // documented places a key is shown).
    const errorBodies = bodies.filter((b) => b.includes('"error":1'));
    for (const secret of secrets)
      for (const b of errorBodies) expect(b.includes(secret)).toBe(false);
    expect(logs).not.toMatch(/"authorization":"Bearer/i);
  }, 60_000);
});
