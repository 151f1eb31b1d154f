import { Agent, get } from 'node:http';
import { AddressInfo } from 'node:net';

import { randomString, sha256 } from '@app/common';

import { LoginLinksService } from '../apps/api/src/login-links/login-links.service';
import { createUser, expectError, useSuite } from './support/app';

const LINK = /^http:\/\/short\.test\/auth\/login\/([A-Za-z0-9]{48})$/;

describe('login links', () => {
  const { t, admin, member } = useSuite({ admin: { admin: true }, member: {} });

  /** Issues a link for `userId` and returns the token (and the raw response). */
  const issue = async (userId: number) => {
    const res = await t.http().get(`/api/user/login/${userId}`).set(admin.auth).expect(200);
    const m = LINK.exec(res.body.url);
    if (!m) throw new Error(`unexpected url ${res.body.url}`);
    return { token: m[1], res };
  };
  const redeem = (token: string) => t.http().get(`/auth/login/${token}`);
  const tokenCount = async (userId: number) =>
    (
      await t.db.query(`SELECT count(*)::int AS n FROM login_tokens WHERE user_id = $1`, [userId])
    )[0].n as number;

  describe('GET /api/user/login/:id', () => {
    it('returns {error: 0, url} with <PUBLIC_URL>/auth/login/<token>; only a digest is stored, valid one hour', async () => {
      const u = await createUser(t);
      const { token, res } = await issue(u.id);
      expect(res.body).toEqual({ error: 0, url: `http://short.test/auth/login/${token}` });
      const rows = await t.db.query(
        `SELECT token_hash, used_at, extract(epoch FROM expires_at - now()) AS ttl, row_to_json(login_tokens)::text AS raw
           FROM login_tokens WHERE user_id = $1`,
        [u.id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].token_hash).toBe(sha256(token));
      expect(rows[0].used_at).toBeNull();
      expect(Number(rows[0].ttl)).toBeGreaterThan(3590);
      expect(Number(rows[0].ttl)).toBeLessThanOrEqual(3600);
      expect(rows[0].raw).not.toContain(token);
    });

    it('every link is a new random token', async () => {
      const u = await createUser(t);
      const a = await issue(u.id);
      const b = await issue(u.id);
      expect(a.token).not.toBe(b.token);
      expect(await tokenCount(u.id)).toBe(2);
    });

    it('404 for an unknown user, 400 for a malformed id, issuing nothing', async () => {
      const [{ n: before }] = await t.db.query(`SELECT count(*)::int AS n FROM login_tokens`);
      expectError(
        await t.http().get('/api/user/login/2000000000').set(admin.auth),
        404,
        /^User not found$/,
      );
      expectError(await t.http().get('/api/user/login/abc').set(admin.auth), 400, /^id: /);
      const [{ n: after }] = await t.db.query(`SELECT count(*)::int AS n FROM login_tokens`);
      expect(after).toBe(before);
    });

    it('401 without a key, 403 for a non-admin (even for itself), issuing nothing', async () => {
      expectError(await t.http().get(`/api/user/login/${member.id}`), 401);
      expectError(
        await t.http().get(`/api/user/login/${member.id}`).set(member.auth),
        403,
        /Admin/,
      );
      expect(await tokenCount(member.id)).toBe(0);
    });
  });

  describe('GET /auth/login/:token', () => {
    it('returns the user and its key without an API key; the key works as a Bearer key', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      const res = await redeem(token).expect(200);
      expect(res.body).toEqual({
        error: 0,
        message: expect.any(String),
        data: { id: u.id, email: u.email, username: u.username, apikey: u.apiKey },
      });
      const account = await t
        .http()
        .get('/api/account')
        .set('Authorization', `Bearer ${res.body.data.apikey}`)
        .expect(200);
      expect(account.body.data.id).toBe(u.id);
      const [row] = await t.db.query(`SELECT used_at FROM login_tokens WHERE token_hash = $1`, [
        sha256(token),
      ]);
      expect(row.used_at).toBeInstanceOf(Date);
    });

    it('410 on a second use', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      await redeem(token).expect(200);
      expectError(await redeem(token), 410, /already been used/);
      expectError(await redeem(token), 410, /already been used/);
    });

    it('410 for a link issued before a rotation of the key (by an admin or the user); later links work', async () => {
      const u = await createUser(t);
      const before = await issue(u.id);
      const rotated = await t
        .http()
        .post(`/api/user/${u.id}/key/rotate`)
        .set(admin.auth)
        .expect(200);
      // it would hand out the new key otherwise
      expectError(await redeem(before.token), 410, /^This login link was revoked: .*rotated/);
      const after = await issue(u.id);
      expect((await redeem(after.token).expect(200)).body.data.apikey).toBe(rotated.body.apikey);

      const unused = await issue(u.id);
      await t
        .http()
        .post('/api/account/key/rotate')
        .set('Authorization', `Bearer ${rotated.body.apikey}`)
        .expect(200);
      expectError(await redeem(unused.token), 410, /revoked/);
      // a used link stays "used"
      expectError(await redeem(after.token), 410, /already been used/);
    });

    it('410 once the hour has passed, without using it up', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      await t.db.query(
        `UPDATE login_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`,
        [sha256(token)],
      );
      expectError(await redeem(token), 410, /expired/);
      const [row] = await t.db.query(`SELECT used_at FROM login_tokens WHERE token_hash = $1`, [
        sha256(token),
      ]);
      expect(row.used_at).toBeNull();
    });

    it('404 for an unknown or malformed token', async () => {
      expectError(await redeem(randomString(48)), 404, /^Login link not found$/);
      expectError(await redeem('short'), 404, /^Login link not found$/);
      expectError(await redeem(`${randomString(47)}!`), 404);
      expectError(await redeem(randomString(300)), 404);
    });

    it('404 once the user was deleted', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      await t.http().delete(`/api/user/${u.id}/delete`).set(admin.auth).expect(200);
      expectError(await redeem(token), 404);
    });

    it('two links of one user are independent', async () => {
      const u = await createUser(t);
      const a = await issue(u.id);
      const b = await issue(u.id);
      await redeem(a.token).expect(200);
      await redeem(b.token).expect(200);
      expectError(await redeem(a.token), 410);
    });

    it('single use under 50 concurrent requests: exactly one 200, the rest 410', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      // 50 sockets opened beforehand, then 50 requests written in the same tick, so that they
      // reach the server together rather than one connection set-up after another.
      if (!t.server.address())
        await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
      const { port } = t.server.address() as AddressInfo;
      const agent = new Agent({ keepAlive: true, maxSockets: 50 });
      const send = (path: string) =>
        new Promise<{ status: number; body: { error: number; message?: string; data?: unknown } }>(
          (resolve, reject) => {
            get({ host: '127.0.0.1', port, path, agent }, (res) => {
              let text = '';
              res
                .setEncoding('utf8')
                .on('data', (c) => (text += c))
                .on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
            }).on('error', reject);
          },
        );
      try {
        await Promise.all(Array.from({ length: 50 }, () => send('/health')));
        const results = await Promise.all(
          Array.from({ length: 50 }, () => send(`/auth/login/${token}`)),
        );
        expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(49).fill(410)]);
        expect(results.find((r) => r.status === 200)!.body.data).toEqual({
          id: u.id,
          email: u.email,
          username: u.username,
          apikey: u.apiKey,
        });
        for (const r of results.filter((x) => x.status === 410))
          expect(r.body).toEqual({ error: 1, message: expect.stringMatching(/already been used/) });
      } finally {
        agent.destroy();
      }
    });

    it('single use when 50 redemptions start in the same tick (service level)', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      const service = t.app.get(LoginLinksService);
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, () => service.redeem(token)),
      );
      const ok = results.filter((r) => r.status === 'fulfilled');
      expect(ok).toHaveLength(1);
      expect((ok[0] as PromiseFulfilledResult<unknown>).value).toEqual({
        id: u.id,
        email: u.email,
        username: u.username,
        apikey: u.apiKey,
      });
      for (const r of results.filter((x) => x.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 410 });
    });

    it('a valid API key does not matter to it, an admin key neither', async () => {
      const u = await createUser(t);
      const { token } = await issue(u.id);
      const res = await redeem(token).set(member.auth).expect(200);
      expect(res.body.data.id).toBe(u.id);
    });
  });
});
