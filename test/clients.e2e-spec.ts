import { existsSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { Browser } from 'playwright-core';

import { createTestApp, createUser, expectError, TestApp, TestUser } from './support/app';
import { addLink, insertCampaign, insertChannel, insertDomain } from './support/links';
import { CHROMIUM, launchChromium } from './support/chromium';

const ALLOWED = 'https://app.example.com';
const ALSO_ALLOWED = 'http://localhost:8080';
const STRANGER = 'https://evil.example';
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** Windows are aligned to the minute: start a burst at least 3 s before the next boundary. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 3000) await new Promise((r) => setTimeout(r, left + 50));
}

function corsHeaders(res: { headers: Record<string, string> }): string[] {
  return Object.keys(res.headers).filter((h) => h.startsWith('access-control-'));
}

/** Every spelling of the two schemes a client may send. */
const SCHEMES = ['Token', 'token', 'TOKEN', 'ToKeN', 'Bearer', 'bearer', 'BEARER'];

describe('clients of the platform', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ CORS_ORIGINS: `${ALLOWED}, ${ALSO_ALLOWED}` });
    user = await createUser(t);
  });
  afterAll(() => t.close());

  describe('Authorization: Token <key> works exactly like Bearer', () => {
    it.each(SCHEMES)('%s: a valid key reaches the route', async (scheme) => {
      const res = await t
        .http()
        .get('/api/account')
        .set('Authorization', `${scheme} ${user.apiKey}`)
        .expect(200);
      expect(res.body.data.id).toBe(user.id);
    });

    it.each(SCHEMES)('%s: an unknown key is 401 "Invalid API key"', async (scheme) => {
      expectError(
        await t
          .http()
          .get('/api/account')
          .set('Authorization', `${scheme} ${'z'.repeat(40)}`),
        401,
        /^Invalid API key$/,
      );
    });

    it.each(SCHEMES)('%s: an expired key is 401 "API key has expired"', async (scheme) => {
      const expired = await createUser(t);
      await t.db.query(
        `UPDATE users SET api_key_expires = now() - interval '1 minute' WHERE id = $1`,
        [expired.id],
      );
      expectError(
        await t.http().get('/api/account').set('Authorization', `${scheme} ${expired.apiKey}`),
        401,
        /^API key has expired$/,
      );
    });

    it.each(SCHEMES)('%s: admin routes: 403 for a user, 200 for an admin', async (scheme) => {
      const admin = await createUser(t, { admin: true });
      expectError(
        await t.http().get('/api/plans').set('Authorization', `${scheme} ${user.apiKey}`),
        403,
        /Admin/,
      );
      const res = await t
        .http()
        .get('/api/plans')
        .set('Authorization', `${scheme} ${admin.apiKey}`)
        .expect(200);
      expect(Array.isArray(res.body.data)).toBe(true);
    });

    it('Token writes as the key owner (create, then read with Bearer)', async () => {
      const u = await createUser(t);
      const created = await t
        .http()
        .post('/api/url/add')
        .set('Authorization', `Token ${u.apiKey}`)
        .send({ url: 'https://example.com/token' })
        .expect(200);
      const read = await t.http().get(`/api/url/${created.body.id}`).set(u.auth).expect(200);
      expect(read.body.details.longurl).toBe('https://example.com/token');
    });

    it('other schemes and a scheme without a key are 401 "Missing API key"', async () => {
      for (const value of [
        `Basic ${user.apiKey}`,
        `Tokens ${user.apiKey}`,
        `Token`,
        `Token `,
        `Token:${user.apiKey}`,
        `ApiKey ${user.apiKey}`,
      ]) {
        expectError(
          await t.http().get('/api/account').set('Authorization', value),
          401,
          /^Missing API key/,
        );
      }
    });
  });

  describe('the rate limiter finds the key behind Token too', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await createTestApp({ RATE_LIMIT: '4', RATE_LIMIT_WINDOW_SECONDS: '60' });
    });
    afterAll(() => limited.close());

    it('Bearer and Token requests share one budget per key, apart from the address budget', async () => {
      const u = await createUser(limited);
      await awayFromWindowEdge();
      const seen: string[] = [];
      for (const scheme of ['Bearer', 'Token', 'token', 'BEARER']) {
        const res = await limited
          .http()
          .get('/api/account')
          .set('X-Forwarded-For', '198.51.100.77')
          .set('Authorization', `${scheme} ${u.apiKey}`)
          .expect(200);
        seen.push(res.headers['x-ratelimit-remaining']);
      }
      expect(seen).toEqual(['3', '2', '1', '0']);
      const over = await limited
        .http()
        .get('/api/account')
        .set('Authorization', `Token ${u.apiKey}`);
      expectError(over, 429, /Rate limit/);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // the same address without a key has a budget of its own: the key was not counted per IP
      const anonymous = await limited
        .http()
        .get('/api/account')
        .set('X-Forwarded-For', '198.51.100.77');
      expectError(anonymous, 401);
      expect(anonymous.headers['x-ratelimit-remaining']).toBe('3');
    });
  });

  describe('CORS for /api', () => {
    const preflight = (app: TestApp, origin: string, path = '/api/account') =>
      app
        .http()
        .options(path)
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'PUT')
        .set('Access-Control-Request-Headers', 'authorization, content-type');

    it('answers a preflight from an allowed origin with 204, no key, not counted', async () => {
      await awayFromWindowEdge();
      const before = await t.http().get('/api/account').set(user.auth).expect(200);
      for (const origin of [ALLOWED, ALSO_ALLOWED]) {
        const res = await preflight(t, origin);
        expect(res.status).toBe(204);
        expect(res.text ?? '').toBe('');
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD,POST,PUT,DELETE');
        expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type');
        expect(res.headers['access-control-max-age']).toBe('600');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(res.headers.vary).toMatch(/Origin/);
        for (const h of RATE_HEADERS) expect(res.headers[h]).toBeUndefined();
      }
      // the preflights were not counted against the key's (or the address's) budget
      const after = await t.http().get('/api/account').set(user.auth).expect(200);
      expect(Number(before.headers['x-ratelimit-remaining']) - 1).toBe(
        Number(after.headers['x-ratelimit-remaining']),
      );
    });

    it('answers a preflight to an unknown /api route and to an admin route the same way', async () => {
      for (const path of ['/api/nothing/here', '/api/plans', '/api/url/1/update']) {
        const res = await preflight(t, ALLOWED, path);
        expect(res.status).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      }
    });

    it('a preflight from another origin: 204 without any CORS header', async () => {
      const res = await preflight(t, STRANGER);
      expect(res.status).toBe(204);
      expect(corsHeaders(res)).toEqual([]);
      for (const h of RATE_HEADERS) expect(res.headers[h]).toBeUndefined();
    });

    it('simple requests from an allowed origin can read the body and the rate-limit headers', async () => {
      const res = await t
        .http()
        .get('/api/account')
        .set('Origin', ALLOWED)
        .set('Authorization', `Token ${user.apiKey}`)
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-expose-headers']).toBe(
        'X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset,Retry-After',
      );
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toMatch(/Origin/);
      expect(res.headers['x-ratelimit-limit']).toBe('3000');
    });

    it('errors carry the CORS headers too (a page can read why it failed)', async () => {
      for (const req of [
        t.http().get('/api/account'),
        t.http().get('/api/nothing').set(user.auth),
        t.http().put('/api/account/update').set(user.auth).send({ nope: 1 }),
      ]) {
        const res = await req.set('Origin', ALLOWED);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
        expect(res.headers['access-control-expose-headers']).toMatch(/X-RateLimit-Remaining/);
      }
    });

    it('requests from another origin, or without one, get no CORS header', async () => {
      for (const origin of [STRANGER, 'null', `${ALLOWED}.evil.example`, ALLOWED.toUpperCase()]) {
        const res = await t.http().get('/api/account').set('Origin', origin).set(user.auth);
        expect(res.status).toBe(200);
        expect(corsHeaders(res)).toEqual([]);
      }
      expect(corsHeaders(await t.http().get('/api/account').set(user.auth))).toEqual([]);
    });

    it('only /api: health, docs and the public side get no CORS header', async () => {
      for (const path of ['/health', '/docs-json', '/apiary', '/some-alias']) {
        const res = await t.http().get(path).set('Origin', ALLOWED);
        expect(corsHeaders(res)).toEqual([]);
      }
      const res = await preflight(t, ALLOWED, '/health');
      expect(res.status).not.toBe(204);
      expect(corsHeaders(res)).toEqual([]);
    });

    it('CORS_ORIGINS=* allows any origin (no credentials)', async () => {
      const any = await createTestApp({ CORS_ORIGINS: '*' });
      try {
        const pre = await preflight(any, STRANGER);
        expect(pre.status).toBe(204);
        expect(pre.headers['access-control-allow-origin']).toBe('*');
        const res = await any.http().get('/api/account').set('Origin', STRANGER);
        expectError(res, 401);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['access-control-expose-headers']).toMatch(/Retry-After/);
      } finally {
        await any.close();
      }
    });

    it('without CORS_ORIGINS (the default) no CORS header at all; preflight still 204', async () => {
      const none = await createTestApp({ CORS_ORIGINS: '' });
      try {
        const pre = await preflight(none, ALLOWED);
        expect(pre.status).toBe(204);
        expect(corsHeaders(pre)).toEqual([]);
        const res = await none.http().get('/api/account').set('Origin', ALLOWED);
        expectError(res, 401);
        expect(corsHeaders(res)).toEqual([]);
      } finally {
        await none.close();
      }
    });
  });

  describe('a browser page calls the api', () => {
    let browser: Browser;
    let pages: Server;
    let apiBase: string;

    beforeAll(async () => {
      if (!existsSync(CHROMIUM))
        throw new Error(
          `${CHROMIUM} is missing: this suite needs Debian's chromium package (apt-get install -y chromium)`,
        );
      await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
      apiBase = `http://127.0.0.1:${(t.server.address() as AddressInfo).port}`;
      pages = createServer((_req, res) =>
        res
          .writeHead(200, { 'Content-Type': 'text/html' })
          .end('<!doctype html><title>app</title>'),
      );
      await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
      const pagesPort = (pages.address() as AddressInfo).port;
      // the page origins: localhost:8080 is allowed, evil.example is not
      browser = await launchChromium(
        `MAP localhost:8080 127.0.0.1:${pagesPort}, MAP evil.example 127.0.0.1:${pagesPort}`,
      );
    });
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
    });

    /** Runs fetch() in a page of `origin` against the api; the result or the browser's refusal. */
    async function fetchFrom(origin: string, init: { method: string; body?: string }) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${origin}/`);
        return await page.evaluate(
          async ({ url, key, method, body }) => {
            try {
              const res = await fetch(url, {
                method,
                body,
                headers: { Authorization: `Token ${key}`, 'Content-Type': 'application/json' },
              });
              return {
                status: res.status,
                body: await res.json(),
                remaining: res.headers.get('X-RateLimit-Remaining'),
              };
            } catch (err) {
              return { refused: String(err) };
            }
          },
          { url: `${apiBase}/api/url/add`, key: user.apiKey, ...init },
        );
      } finally {
        await context.close();
      }
    }

    it('a page on an allowed origin creates a link with a Token key and reads the headers', async () => {
      const out = await fetchFrom(ALSO_ALLOWED, {
        method: 'POST',
        body: JSON.stringify({ url: 'https://example.com/from-browser' }),
      });
      expect(out).toMatchObject({
        status: 200,
        body: { error: 0, id: expect.any(Number) },
        remaining: expect.stringMatching(/^\d+$/),
      });
    });

    it('a page on another origin is refused by the browser', async () => {
      const out = await fetchFrom('http://evil.example', {
        method: 'POST',
        body: JSON.stringify({ url: 'https://example.com/from-evil' }),
      });
      expect(out).toEqual({ refused: expect.stringMatching(/TypeError/) });
    });
  });

  describe('list items', () => {
    it('a link item carries domain (host), campaign, channels and status', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const campaign = await insertCampaign(t, u.id, { name: 'Launch' });
      const [c1, c2] = [await insertChannel(t, u.id), await insertChannel(t, u.id)];
      const plain = await addLink(t, u, { url: 'https://example.com/plain' });
      const full = await addLink(t, u, {
        url: 'https://example.com/full',
        domain: domain.id,
        campaign,
        channel: c2,
      });
      await t.http().post(`/api/channel/${c1}/assign/links/${full.id}`).set(u.auth).expect(200);
      await t
        .http()
        .put(`/api/url/${full.id}/update`)
        .set(u.auth)
        .send({ status: 'private' })
        .expect(200);
      // someone else's channel item for another link does not leak in
      const other = await createUser(t);
      const theirs = await insertChannel(t, other.id);
      const otherLink = await addLink(t, other, { url: 'https://example.com/x' });
      await t
        .http()
        .post(`/api/channel/${theirs}/assign/links/${otherLink.id}`)
        .set(other.auth)
        .expect(200);

      const res = await t.http().get('/api/urls').set(u.auth).expect(200);
      expect(res.body.data.urls).toEqual([
        expect.objectContaining({
          id: full.id,
          domain: domain.host,
          campaign,
          channels: [c1, c2].sort((a, b) => a - b),
          status: 'private',
        }),
        expect.objectContaining({
          id: plain.id,
          domain: null,
          campaign: null,
          channels: [],
          status: 'public',
        }),
      ]);
      // the same fields for the link in its details (domain there is the URL)
      const details = (await t.http().get(`/api/url/${full.id}`).set(u.auth).expect(200)).body
        .details;
      expect(details).toMatchObject({
        domain: domain.url,
        campaign,
        channels: [c1, c2].sort((a, b) => a - b),
        status: 'private',
      });
    });

    it('a campaign list entry carries the name under domain as well as name', async () => {
      const u = await createUser(t);
      const id = await insertCampaign(t, u.id, { name: 'Summer' });
      const res = await t.http().get('/api/campaigns').set(u.auth).expect(200);
      expect(res.body.data.campaigns).toEqual([
        expect.objectContaining({ id, domain: 'Summer', name: 'Summer' }),
      ]);
    });
  });
});
