import request from 'supertest';

import { SESSION_RENEW_MS, SessionStore, sha256 } from '@app/common';

import {
  createPlan,
  createTestApp,
  createUser,
  expectError,
  TestApp,
  TestUser,
  withTestApp,
} from './support/app';
import { addMember } from './support/access';
import { eventually } from './support/stats';

const WRONG = /^Wrong e-mail or password$/;
const ENDED = /^Session expired or signed out: sign in again$/;
const CSRF = /^Missing or wrong X-CSRF-Token/;
const DAY_MS = 86_400_000;

/** A client address of its own per call: the per-address limit never mixes two tests. */
let lastIp = 0;
const nextIp = () => {
  lastIp += 1;
  return `198.51.${Math.floor(lastIp / 250)}.${(lastIp % 250) + 1}`;
};

interface Signed {
  /** `lm_session=<token>`, for a Cookie header. */
  cookie: string;
  token: string;
  csrf: string;
}

function setCookieOf(res: request.Response): string | undefined {
  const all = (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
  return all.find((c) => c.startsWith('lm_session='));
}

/**
 * Sessions for people (CONTRACT "Sign-in for people, and the dashboard"): sign-in with the
 * password and its guess limit, the cookie, /api with the session and its CSRF rule, sessions
 * that end at once on every replica, expiry and renewal, login links opened by a browser.
 */
describe('sessions', () => {
  let a: TestApp;
  /** A second replica on the same Postgres and Redis, with a long-lived principal cache. */
  let b: TestApp;
  let admin: TestUser;

  const signIn = (app: TestApp, body: object, ip = nextIp()) =>
    app.http().post('/auth/session').set('X-Forwarded-For', ip).send(body);

  const signedIn = async (u: TestUser, app = a): Promise<Signed> => {
    const res = await signIn(app, { email: u.email, password: u.password }).expect(200);
    const cookie = (setCookieOf(res) as string).split(';')[0];
    return { cookie, token: cookie.slice('lm_session='.length), csrf: res.body.data.csrf };
  };

  const sessionKey = (token: string) => a.redis.key('session', sha256(token));
  const indexKey = (userId: number) => a.redis.key('sessions', userId);
  const account = (app: TestApp, s: Signed) =>
    app.http().get('/api/account').set('Cookie', s.cookie);
  const linkCount = async (userId: number) =>
    (await a.db.query(`SELECT count(*)::int AS n FROM links WHERE user_id = $1`, [userId]))[0]
      .n as number;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ AUTH_CACHE_SECONDS: '300' });
    admin = await createUser(a, { admin: true });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  describe('POST /auth/session', () => {
    it('signs in with the right password: the user, a csrf token and an HttpOnly, SameSite=Lax cookie for Path=/ (not Secure over http)', async () => {
      const u = await createUser(a);
      const res = await signIn(a, { email: u.email.toUpperCase(), password: u.password }).expect(
        200,
      );
      expect(res.body).toEqual({
        error: 0,
        data: {
          id: u.id,
          email: u.email,
          username: u.username,
          admin: false,
          csrf: expect.any(String),
        },
      });
      expect(res.body.data.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const cookie = setCookieOf(res) as string;
      const [pair, ...attributes] = cookie.split('; ');
      expect(pair).toMatch(/^lm_session=[A-Za-z0-9_-]{43}$/);
      expect(attributes.sort()).toEqual(
        ['HttpOnly', `Max-Age=${14 * 86400}`, 'Path=/', 'SameSite=Lax'].sort(),
      );
    });

    it('says whether the user is an admin (the dashboard shows its admin area), in POST and GET', async () => {
      const res = await signIn(a, { email: admin.email, password: admin.password }).expect(200);
      expect(res.body.data.admin).toBe(true);
      const cookie = (setCookieOf(res) as string).split(';')[0];
      const current = await a.http().get('/auth/session').set('Cookie', cookie).expect(200);
      expect(current.body.data).toEqual({
        id: admin.id,
        email: admin.email,
        username: admin.username,
        admin: true,
        csrf: res.body.data.csrf,
      });
    });

    it('stores the session under the digest of its token (never the token) for SESSION_DAYS, indexed per user', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      const raw = await a.redis.client.get(sessionKey(s.token));
      expect(JSON.parse(raw as string)).toEqual({
        userId: u.id,
        csrf: s.csrf,
        created: expect.any(Number),
        renewed: expect.any(Number),
      });
      expect(raw).not.toContain(s.token);
      expect(await a.redis.client.get(a.redis.key('session', s.token))).toBeNull();
      const ttl = await a.redis.client.pttl(sessionKey(s.token));
      expect(ttl).toBeGreaterThan(14 * DAY_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(14 * DAY_MS);
      expect(await a.redis.client.zrange(indexKey(u.id), 0, -1)).toEqual([sha256(s.token)]);
      // every sign-in is a session of its own
      const again = await signedIn(u);
      expect(again.token).not.toBe(s.token);
      expect(again.csrf).not.toBe(s.csrf);
      expect((await a.redis.client.zrange(indexKey(u.id), 0, -1)).sort()).toEqual(
        [sha256(s.token), sha256(again.token)].sort(),
      );
    });

    it('answers a wrong password and an unknown e-mail alike: 401, one message, no cookie', async () => {
      const u = await createUser(a);
      const wrong = await signIn(a, { email: u.email, password: 'not-the-password' });
      const unknown = await signIn(a, { email: `nobody-${u.email}`, password: u.password });
      expect(expectError(wrong, 401, WRONG)).toBe(expectError(unknown, 401, WRONG));
      expect(setCookieOf(wrong)).toBeUndefined();
      expect(setCookieOf(unknown)).toBeUndefined();
      expect(await a.redis.client.zcard(indexKey(u.id))).toBe(0);
    });

    it('is Secure when PUBLIC_URL is https, and lasts SESSION_DAYS', async () => {
      await withTestApp({ PUBLIC_URL: 'https://short.test', SESSION_DAYS: '2' }, async (t) => {
        const u = await createUser(t);
        const res = await signIn(t, { email: u.email, password: u.password }).expect(200);
        const cookie = setCookieOf(res) as string;
        expect(cookie.split('; ').sort()).toEqual(
          [
            cookie.split('; ')[0],
            'HttpOnly',
            `Max-Age=${2 * 86400}`,
            'Path=/',
            'SameSite=Lax',
            'Secure',
          ].sort(),
        );
        const token = cookie.split(';')[0].slice('lm_session='.length);
        const ttl = await t.redis.client.pttl(t.redis.key('session', sha256(token)));
        expect(ttl).toBeGreaterThan(2 * DAY_MS - 60_000);
        expect(ttl).toBeLessThanOrEqual(2 * DAY_MS);
      });
    });

    it('refuses a malformed body naming the field, and a body that is not application/json (415)', async () => {
      expectError(await signIn(a, { password: 'x' }), 400, /^email: /);
      expectError(await signIn(a, { email: 'a@example.com' }), 400, /^password: /);
      expectError(await signIn(a, { email: 'a@example.com', password: '' }), 400, /^password: /);
      expectError(
        await signIn(a, { email: 'a@example.com', password: 'x', extra: 1 }),
        400,
        /extra/,
      );
      const u = await createUser(a);
      // what a cross-site form can send: no sign-in CSRF
      const form = await a
        .http()
        .post('/auth/session')
        .set('X-Forwarded-For', nextIp())
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify({ email: u.email, password: u.password }));
      expectError(form, 415, /application\/json/);
      expect(setCookieOf(form)).toBeUndefined();
    });
  });

  describe('the guess limit', () => {
    it('per account: the 11th failure within 15 minutes is a 429 with Retry-After, from any address, even with the right password', async () => {
      const u = await createUser(a);
      for (let i = 0; i < 10; i++)
        expectError(await signIn(a, { email: u.email, password: `wrong${i}` }), 401, WRONG);
      const eleventh = await signIn(a, { email: u.email, password: 'wrong10' });
      expectError(eleventh, 429, /^Too many failed sign-ins: try again in 15 minutes$/);
      const retry = Number(eleventh.headers['retry-after']);
      expect(retry).toBeGreaterThan(14 * 60);
      expect(retry).toBeLessThanOrEqual(15 * 60);
      expectError(await signIn(a, { email: u.email, password: u.password }), 429);
      // any case of the e-mail is the same account
      expectError(await signIn(a, { email: u.email.toUpperCase(), password: u.password }), 429);
      // other accounts from the same addresses are not held
      const other = await createUser(a);
      await signedIn(other);
      // the window ends
      await a.redis.client.del(a.redis.key('signin', 'account', sha256(u.email.toLowerCase())));
      await signedIn(u);
    });

    it('per account, also for an e-mail without one (nothing tells them apart)', async () => {
      const email = `nobody-${Date.now()}@example.com`;
      for (let i = 0; i < 10; i++)
        expectError(await signIn(a, { email, password: `wrong${i}` }), 401, WRONG);
      expectError(await signIn(a, { email, password: 'x' }), 429);
    });

    it('per address: the 11th failure from one address is a 429, for any account, even with the right password', async () => {
      const ip = nextIp();
      for (let i = 0; i < 10; i++)
        expectError(
          await signIn(a, { email: `guess${i}-${Date.now()}@example.com`, password: 'x' }, ip),
          401,
          WRONG,
        );
      const u = await createUser(a);
      expectError(
        await signIn(a, { email: u.email, password: u.password }, ip),
        429,
        /^Too many failed sign-ins/,
      );
      // the account itself is not held: from elsewhere it signs in
      await signedIn(u);
    });

    it('counts failures only: sign-ins that succeed never reach the limit', async () => {
      const u = await createUser(a);
      const ip = nextIp();
      for (let i = 0; i < 12; i++)
        await signIn(a, { email: u.email, password: u.password }, ip).expect(200);
      for (let i = 0; i < 10; i++)
        expectError(await signIn(a, { email: u.email, password: 'wrong' }, ip), 401, WRONG);
      expectError(await signIn(a, { email: u.email, password: u.password }, ip), 429);
    });

    it('holds however many guesses arrive at once: at most 10 are verified', async () => {
      const u = await createUser(a);
      const ip = nextIp();
      const answers = await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          signIn(a, { email: u.email, password: `wrong${i}` }, ip),
        ),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    });
  });

  describe('GET and DELETE /auth/session', () => {
    it('GET answers the signed-in user and its csrf token, and sends the cookie again', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      const res = await a.http().get('/auth/session').set('Cookie', s.cookie).expect(200);
      expect(res.body).toEqual({
        error: 0,
        data: { id: u.id, email: u.email, username: u.username, admin: false, csrf: s.csrf },
      });
      expect(setCookieOf(res)).toMatch(new RegExp(`^${s.cookie}; Path=/; Max-Age=1209600; `));
    });

    it('GET is a 401 without a cookie, and with a cookie of no session (which it removes)', async () => {
      const none = await a.http().get('/auth/session');
      expectError(none, 401, /^Not signed in/);
      expect(setCookieOf(none)).toBeUndefined();
      const stale = await a
        .http()
        .get('/auth/session')
        .set('Cookie', `other=1; lm_session=${'A'.repeat(43)}`);
      expectError(stale, 401, /^Not signed in/);
      expect(setCookieOf(stale)).toMatch(/^lm_session=; Path=\/; Max-Age=0; HttpOnly/);
      expectError(await a.http().get('/auth/session').set('Cookie', 'lm_session=not-a-token'), 401);
    });

    it('DELETE ends the session on every replica and removes the cookie; it answers 200 without one too', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      const kept = await signedIn(u);
      await account(b, s).expect(200);
      const res = await a.http().delete('/auth/session').set('Cookie', s.cookie).expect(200);
      expect(res.body).toEqual({ error: 0, message: 'Signed out.' });
      expect(setCookieOf(res)).toMatch(/^lm_session=; Path=\/; Max-Age=0; HttpOnly/);
      expectError(await account(b, s), 401, ENDED);
      expectError(await a.http().get('/auth/session').set('Cookie', s.cookie), 401);
      expect(await a.redis.client.exists(sessionKey(s.token))).toBe(0);
      expect(await a.redis.client.zrange(indexKey(u.id), 0, -1)).toEqual([sha256(kept.token)]);
      // the user's other session goes on
      await account(b, kept).expect(200);
      await a.http().delete('/auth/session').expect(200);
      await a.http().delete('/auth/session').set('Cookie', s.cookie).expect(200);
    });
  });

  describe('/api with a session', () => {
    it('reads /api/account and /api/urls as the signed-in user, with one Redis read for the session', async () => {
      const u = await createUser(a);
      await a.http().post('/api/url/add').set(u.auth).send({ url: 'https://example.com/s' });
      const s = await signedIn(u);
      const reads = jest.spyOn(b.redis.reads, 'get');
      try {
        expect((await account(b, s).expect(200)).body.data.id).toBe(u.id);
        expect(reads.mock.calls.filter(([k]) => k === sessionKey(s.token))).toHaveLength(1);
        // a request with a key never looks at the cookie
        reads.mockClear();
        await b.http().get('/api/account').set(u.auth).set('Cookie', s.cookie).expect(200);
        expect(reads.mock.calls.filter(([k]) => k === sessionKey(s.token))).toHaveLength(0);
      } finally {
        reads.mockRestore();
      }
      const list = await a.http().get('/api/urls').set('Cookie', s.cookie).expect(200);
      expect(list.body.data.urls.map((l: { longurl: string }) => l.longurl)).toEqual([
        'https://example.com/s',
      ]);
    });

    it('a change needs X-CSRF-Token: missing or wrong → 403 and nothing changes; the session’s token → 200', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      const add = (app: TestApp) =>
        app
          .http()
          .post('/api/url/add')
          .set('Cookie', s.cookie)
          .send({ url: 'https://example.com/' });
      expectError(await add(a), 403, CSRF);
      expectError(await add(b).set('X-CSRF-Token', 'x'.repeat(43)), 403, CSRF);
      expectError(await add(b).set('X-CSRF-Token', ''), 403, CSRF);
      expectError(await add(b).set('X-CSRF-Token', s.csrf.slice(1)), 403, CSRF);
      const other = await signedIn(u);
      expectError(await add(a).set('X-CSRF-Token', other.csrf), 403, CSRF);
      expect(await linkCount(u.id)).toBe(0);
      const made = await add(b).set('X-CSRF-Token', s.csrf).expect(200);
      expect(await linkCount(u.id)).toBe(1);
      // PUT and DELETE alike
      expectError(
        await a.http().delete(`/api/url/${made.body.id}/delete`).set('Cookie', s.cookie),
        403,
        CSRF,
      );
      await a
        .http()
        .delete(`/api/url/${made.body.id}/delete`)
        .set('Cookie', s.cookie)
        .set('X-CSRF-Token', s.csrf)
        .expect(200);
      expect(await linkCount(u.id)).toBe(0);
    });

    it('an Authorization header decides alone: a valid key acts as its user, an invalid one is a 401 beside a live cookie', async () => {
      const u = await createUser(a);
      const other = await createUser(a);
      const s = await signedIn(u);
      const res = await a
        .http()
        .get('/api/account')
        .set('Cookie', s.cookie)
        .set(other.auth)
        .expect(200);
      expect(res.body.data.id).toBe(other.id);
      expectError(
        await a
          .http()
          .get('/api/account')
          .set('Cookie', s.cookie)
          .set('Authorization', 'Bearer nope'),
        401,
        /^Invalid API key$/,
      );
      // a key's writes need no CSRF token, cookie or not
      await a
        .http()
        .post('/api/url/add')
        .set('Cookie', s.cookie)
        .set(other.auth)
        .send({ url: 'https://example.com/' })
        .expect(200);
      expect(await linkCount(other.id)).toBe(1);
      expect(await linkCount(u.id)).toBe(0);
    });

    it('a session reaches its own data only; another workspace only as a member, with the member’s role', async () => {
      const u = await createUser(a);
      const owner = await createUser(a);
      const link = await a
        .http()
        .post('/api/url/add')
        .set(owner.auth)
        .send({ url: 'https://example.com/owner' })
        .expect(200);
      const s = await signedIn(u);
      expectError(await a.http().get(`/api/url/${link.body.id}`).set('Cookie', s.cookie), 404);
      expect(
        (await a.http().get('/api/urls').set('Cookie', s.cookie).expect(200)).body.data.urls,
      ).toEqual([]);
      expectError(
        await a
          .http()
          .get('/api/urls')
          .set('Cookie', s.cookie)
          .set('X-Workspace', String(owner.id)),
        404,
        /^Workspace not found \(X-Workspace\)$/,
      );
      expectError(
        await a.http().get('/api/urls').set('Cookie', s.cookie).set('X-Workspace', 'abc'),
        400,
      );
      await addMember(a, owner.id, u.id, 'viewer');
      const urls = await b
        .http()
        .get('/api/urls')
        .set('Cookie', s.cookie)
        .set('X-Workspace', String(owner.id))
        .expect(200);
      expect(urls.body.data.urls.map((l: { id: number }) => l.id)).toEqual([link.body.id]);
      expectError(
        await b
          .http()
          .post('/api/url/add')
          .set('Cookie', s.cookie)
          .set('X-CSRF-Token', s.csrf)
          .set('X-Workspace', String(owner.id))
          .send({ url: 'https://example.com/' }),
        403,
        /^This needs the role editor in this workspace; yours is viewer$/,
      );
      // admin routes need an admin: a session is its user, no more
      expectError(await a.http().get('/api/users').set('Cookie', s.cookie), 403, /Admin/);
      const adminSession = await signedIn(admin);
      await a.http().get('/api/users').set('Cookie', adminSession.cookie).expect(200);
    });

    it('a plan without API access still signs in to the dashboard (the gate is about keys)', async () => {
      const planId = await createPlan(a, { api: { enabled: '0' } });
      const u = await createUser(a, { planId });
      expectError(await a.http().get('/api/urls').set(u.auth), 403, /API access/);
      const s = await signedIn(u);
      await a.http().get('/api/urls').set('Cookie', s.cookie).expect(200);
    });

    it('an unknown or malformed cookie is a 401', async () => {
      expectError(
        await a
          .http()
          .get('/api/account')
          .set('Cookie', `lm_session=${'B'.repeat(43)}`),
        401,
        ENDED,
      );
      expectError(
        await a.http().get('/api/account').set('Cookie', 'lm_session=short'),
        401,
        /^Missing API key/,
      );
      expectError(await a.http().get('/api/account').set('Cookie', 'x=1'), 401, /^Missing API key/);
    });
  });

  describe('sessions end at once, on every replica', () => {
    it('when the password changes (with a key): every session of the user, the other users’ not', async () => {
      const u = await createUser(a);
      const other = await createUser(a);
      const s1 = await signedIn(u);
      const s2 = await signedIn(u, b);
      const others = await signedIn(other);
      await account(b, s1).expect(200);
      await account(b, s2).expect(200);
      await a
        .http()
        .put('/api/account/update')
        .set(u.auth)
        .send({ password: 'new-password' })
        .expect(200);
      expectError(await account(b, s1), 401, ENDED);
      expectError(await account(b, s2), 401, ENDED);
      expect(await a.redis.client.zcard(indexKey(u.id))).toBe(0);
      await account(b, others).expect(200);
      // the new password signs in; the old one no more
      expectError(await signIn(a, { email: u.email, password: u.password }), 401, WRONG);
      await signIn(b, { email: u.email, password: 'new-password' }).expect(200);
    });

    it('when the password changes through the session itself (it ends too); an e-mail change ends none', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      await b
        .http()
        .put('/api/account/update')
        .set('Cookie', s.cookie)
        .set('X-CSRF-Token', s.csrf)
        .send({ email: `new-${u.email}` })
        .expect(200);
      await account(b, s).expect(200);
      await b
        .http()
        .put('/api/account/update')
        .set('Cookie', s.cookie)
        .set('X-CSRF-Token', s.csrf)
        .send({ password: 'another-password' })
        .expect(200);
      expectError(await account(a, s), 401, ENDED);
    });

    it('a sign-in that the password change overtakes keeps no session (it checks again once stored)', async () => {
      const u = await createUser(a);
      const store = a.app.get(SessionStore);
      const create = store.create.bind(store);
      let made: string | undefined;
      const spy = jest.spyOn(store, 'create').mockImplementationOnce(async (userId) => {
        const stored = await create(userId);
        made = stored.token;
        // the password changes meanwhile: its endAll ran before this session was indexed
        await a.db.query(`UPDATE users SET password_hash = 'changed' WHERE id = $1`, [u.id]);
        return stored;
      });
      try {
        expectError(await signIn(a, { email: u.email, password: u.password }), 401, WRONG);
      } finally {
        spy.mockRestore();
      }
      expect(made).toBeDefined();
      expect(await a.redis.client.exists(sessionKey(made as string))).toBe(0);
      expect(await a.redis.client.zcard(indexKey(u.id))).toBe(0);
    });

    it('when the user is deleted', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      await account(b, s).expect(200);
      await a.http().delete(`/api/user/${u.id}/delete`).set(admin.auth).expect(200);
      expectError(await account(b, s), 401, ENDED);
      expectError(await b.http().get('/auth/session').set('Cookie', s.cookie), 401);
      expect(await a.redis.client.exists(sessionKey(s.token))).toBe(0);
      expect(await a.redis.client.exists(indexKey(u.id))).toBe(0);
    });
  });

  describe('expiry and renewal', () => {
    it('an expired session is refused', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      await account(a, s).expect(200);
      await a.redis.client.pexpire(sessionKey(s.token), 1);
      await new Promise((r) => setTimeout(r, 10));
      expectError(await account(a, s), 401, ENDED);
      expectError(await a.http().get('/auth/session').set('Cookie', s.cookie), 401);
    });

    it('use renews a session whose last renewal is an hour old, to SESSION_DAYS again; a younger one is not written', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      const key = sessionKey(s.token);
      const stored = JSON.parse((await a.redis.client.get(key)) as string);

      // renewed 59 minutes ago, 60 s left: not renewed
      const young = { ...stored, renewed: Date.now() - SESSION_RENEW_MS + 60_000 };
      await a.redis.client.set(key, JSON.stringify(young), 'PX', 60_000);
      await account(b, s).expect(200);
      await new Promise((r) => setTimeout(r, 200));
      expect(await a.redis.client.pttl(key)).toBeLessThanOrEqual(60_000);
      expect(JSON.parse((await a.redis.client.get(key)) as string)).toEqual(young);

      // renewed 61 minutes ago: renewed
      const old = { ...stored, renewed: Date.now() - SESSION_RENEW_MS - 60_000 };
      await a.redis.client.set(key, JSON.stringify(old), 'PX', 60_000);
      await account(b, s).expect(200);
      await eventually(
        async () => (await a.redis.client.pttl(key)) > 14 * DAY_MS - 60_000,
        2000,
        20,
      );
      const renewed = JSON.parse((await a.redis.client.get(key)) as string);
      expect(renewed).toEqual({ ...stored, renewed: expect.any(Number) });
      expect(renewed.renewed).toBeGreaterThan(Date.now() - 10_000);
      const score = Number(await a.redis.client.zscore(indexKey(u.id), sha256(s.token)));
      expect(score).toBeGreaterThan(Date.now() + 14 * DAY_MS - 60_000);
      expect(await a.redis.client.pttl(indexKey(u.id))).toBeGreaterThan(14 * DAY_MS - 60_000);
    });

    it('a renewal never brings back a session that ended', async () => {
      const u = await createUser(a);
      const s = await signedIn(u);
      const key = sessionKey(s.token);
      const stored = JSON.parse((await a.redis.client.get(key)) as string);
      await a.redis.client.set(
        key,
        JSON.stringify({ ...stored, renewed: Date.now() - 2 * SESSION_RENEW_MS }),
        'PX',
        60_000,
      );
      // the read and the sign-out race: whichever comes first, the session stays ended
      await Promise.all([
        account(b, s),
        a.http().delete('/auth/session').set('Cookie', s.cookie).expect(200),
      ]);
      await new Promise((r) => setTimeout(r, 200));
      expect(await a.redis.client.exists(key)).toBe(0);
      expectError(await account(a, s), 401, ENDED);
    });
  });

  describe('login links', () => {
    const issue = async (userId: number) => {
      const res = await a.http().get(`/api/user/login/${userId}`).set(admin.auth).expect(200);
      return new URL(res.body.url).pathname;
    };
    const BROWSER_ACCEPT =
      'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

    it('opened by a browser: signs its user in and redirects to /app', async () => {
      const u = await createUser(a);
      const res = await a
        .http()
        .get(await issue(u.id))
        .set('Accept', BROWSER_ACCEPT);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/app');
      expect(res.text ?? '').toBe('');
      const cookie = setCookieOf(res) as string;
      expect(cookie).toMatch(
        /^lm_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=1209600; HttpOnly; SameSite=Lax$/,
      );
      const s = cookie.split(';')[0];
      const me = await b.http().get('/auth/session').set('Cookie', s).expect(200);
      expect(me.body.data).toMatchObject({ id: u.id, email: u.email });
      expect((await b.http().get('/api/account').set('Cookie', s).expect(200)).body.data.id).toBe(
        u.id,
      );
    });

    it('API clients keep the JSON answer (no cookie)', async () => {
      const u = await createUser(a);
      for (const accept of [undefined, 'application/json', '*/*']) {
        const req = a.http().get(await issue(u.id));
        if (accept) req.set('Accept', accept);
        const res = await req.expect(200);
        expect(res.body).toEqual({
          error: 0,
          message: 'Login successful.',
          data: { id: u.id, email: u.email, username: u.username, apikey: u.apiKey },
        });
        expect(setCookieOf(res)).toBeUndefined();
      }
    });

    it('a used link signs no browser in', async () => {
      const u = await createUser(a);
      const path = await issue(u.id);
      await a.http().get(path).expect(200);
      const res = await a.http().get(path).set('Accept', BROWSER_ACCEPT);
      expectError(res, 410, /already been used/);
      expect(setCookieOf(res)).toBeUndefined();
    });
  });

  describe('CORS', () => {
    it('never allows credentials: preflights and answers to an allowed origin, or any', async () => {
      for (const origins of ['https://app.example', '*']) {
        await withTestApp({ CORS_ORIGINS: origins }, async (t) => {
          const u = await createUser(t);
          const s = await signedIn(u, t);
          const preflight = await request(t.server)
            .options('/api/url/add')
            .set('Origin', 'https://app.example')
            .set('Access-Control-Request-Method', 'POST')
            .set('Access-Control-Request-Headers', 'content-type, x-csrf-token');
          expect(preflight.status).toBe(204);
          expect(preflight.headers['access-control-allow-origin']).toBeDefined();
          expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
          const answer = await t
            .http()
            .get('/api/account')
            .set('Origin', 'https://app.example')
            .set('Cookie', s.cookie)
            .expect(200);
          expect(answer.headers['access-control-allow-origin']).toBeDefined();
          expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
          // /auth is no CORS path: no page elsewhere reads a session's csrf token
          const auth = await request(t.server)
            .options('/auth/session')
            .set('Origin', 'https://app.example')
            .set('Access-Control-Request-Method', 'POST');
          expect(auth.headers['access-control-allow-origin']).toBeUndefined();
          const me = await t
            .http()
            .get('/auth/session')
            .set('Origin', 'https://app.example')
            .set('Cookie', s.cookie)
            .expect(200);
          expect(me.headers['access-control-allow-origin']).toBeUndefined();
          expect(me.headers['access-control-allow-credentials']).toBeUndefined();
        });
      }
    });
  });
});
