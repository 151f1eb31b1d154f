import { sha256 } from '@app/common';

import { createUser, DATE_TIME, expectError, useSuite } from './support/app';

describe('platform: envelope, auth, errors, health, docs', () => {
  const { t, user } = useSuite({ user: {} });

  describe('authentication', () => {
    it('401 without a key, with rate-limit headers', async () => {
      const res = await t.http().get('/api/account');
      expectError(res, 401, /Missing API key/);
      expect(res.headers['x-ratelimit-limit']).toBe('3000');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
    });

    it('401 for an unknown key and for a malformed header', async () => {
      expectError(
        await t.http().get('/api/account').set('Authorization', 'Bearer nope'),
        401,
        /Invalid API key/,
      );
      expectError(
        await t.http().get('/api/account').set('Authorization', user.apiKey),
        401,
        /Missing API key/,
      );
      expectError(
        await t
          .http()
          .get('/api/account')
          .set('Authorization', `Bearer ${'x'.repeat(5000)}`),
        401,
      );
    });

    it('401 "API key has expired" for an expired key', async () => {
      const other = await createUser(t);
      await t.db.query(
        `UPDATE users SET api_key_expires = now() - interval '1 minute' WHERE id = $1`,
        [other.id],
      );
      expectError(await t.http().get('/api/account').set(other.auth), 401, /^API key has expired$/);
    });

    it('accepts the key case-insensitively on the scheme', async () => {
      const res = await t.http().get('/api/account').set('Authorization', `bearer ${user.apiKey}`);
      expect(res.status).toBe(200);
    });

    it('stores keys only as a digest and an encrypted copy', async () => {
      const [row] = await t.db.query(`SELECT api_key_hash, api_key_enc FROM users WHERE id = $1`, [
        user.id,
      ]);
      expect(row.api_key_hash).toBe(sha256(user.apiKey));
      expect(row.api_key_enc).not.toContain(user.apiKey);
    });
  });

  describe('plan gate', () => {
    it('403 on every route but GET /api/account when the plan disables the API', async () => {
      const [plan] = await t.db.query(
        `INSERT INTO plans (name, free, limits) SELECT 'NoApi', true, limits || '{"api":{"enabled":"0"}}'::jsonb
         FROM plans WHERE free ORDER BY id LIMIT 1 RETURNING id`,
      );
      const limited = await createUser(t, { planId: plan.id });
      expect((await t.http().get('/api/account').set(limited.auth)).status).toBe(200);
      expectError(
        await t.http().put('/api/account/update').set(limited.auth).send({ password: 'abcdef' }),
        403,
        /API access/,
      );
    });
  });

  describe('errors in the envelope', () => {
    it('404 for an unknown /api route', async () => {
      expectError(await t.http().get('/api/nothing/here').set(user.auth), 404, /not found/i);
    });

    it('400 for malformed JSON, with rate-limit headers', async () => {
      const res = await t
        .http()
        .put('/api/account/update')
        .set(user.auth)
        .set('Content-Type', 'application/json')
        .send('{"email":');
      expectError(res, 400, /Malformed JSON/);
      expect(res.headers['x-ratelimit-limit']).toBe('3000');
    });

    it('400 for a JSON body that is not an object', async () => {
      const res = await t
        .http()
        .put('/api/account/update')
        .set(user.auth)
        .set('Content-Type', 'application/json')
        .send('[1,2]');
      expectError(res, 400, /JSON object/);
    });

    it('400 naming the path id when it is not plain decimal digits', async () => {
      for (const id of ['1e3', '0x10', '-1', '0', '1.5', '99999999999', ' 1']) {
        expectError(
          await t
            .http()
            .delete(`/api/pixel/${encodeURIComponent(id)}/delete`)
            .set(user.auth),
          400,
          /^id: must be a positive integer$/,
        );
      }
    });

    it('400 for unknown fields, naming them', async () => {
      expectError(
        await t
          .http()
          .put('/api/account/update')
          .set(user.auth)
          .send({ email: 'a@b.co', admin: true }),
        400,
        /admin: unknown field/,
      );
    });

    it('one message per bad field: missing is "required", a wrong JSON type is said first and alone', async () => {
      const add = (body?: object) => t.http().post('/api/url/add').set(user.auth).send(body);
      expectError(await add({}), 400, /^url: required$/);
      expectError(await add(), 400, /^url: required$/);
      expectError(
        await add({ url: 'https://example.com/', clicklimit: '10' }),
        400,
        /^clicklimit: must be an integer number \(got a string\)$/,
      );
      expectError(
        await add({ url: 'https://example.com/', clicklimit: 0 }),
        400,
        /^clicklimit: must not be less than 1$/,
      );
      expectError(
        await add({
          url: 'https://example.com/',
          geotarget: { location: 'US', link: 'https://a.example/' },
        }),
        400,
        /^geotarget: must be an array \(got an object\)$/,
      );
      // inside an array, each bad item and field once
      expectError(
        await add({ url: 'https://example.com/', geotarget: [{ location: 'DE' }, 'US'] }),
        400,
        /^geotarget\[0\]\.link: required; geotarget\[1\]: must be an object \(got a string\)$/,
      );
      expectError(await add({ url: 5 }), 400, /^url: must be a string \(got a number\)$/);
    });

    it('405 with Allow for a method the path does not have, naming the route meant', async () => {
      const res = await t.http().delete('/api/url/2').set(user.auth);
      expectError(
        res,
        405,
        /^Method not allowed: \/api\/url\/:id answers GET, HEAD; use DELETE \/api\/url\/:id\/delete$/,
      );
      expect(res.headers.allow).toBe('GET, HEAD');
      const get = await t.http().get('/api/url/2/delete').set(user.auth);
      expectError(get, 405, /^Method not allowed: \/api\/url\/:id\/delete answers DELETE$/);
      expect(get.headers.allow).toBe('DELETE');
      // a path no route has: 404 as before
      const none = await t.http().delete('/api/nothing/here').set(user.auth);
      expectError(none, 404, /^Route not found$/);
      expect(none.headers.allow).toBeUndefined();
    });

    it('413 for a body over 1 MB', async () => {
      const res = await t
        .http()
        .put('/api/account/update')
        .set(user.auth)
        .send({ email: 'x'.repeat(1_100_000) });
      expectError(res, 413, /1 MB/);
    });
  });

  describe('account', () => {
    it('GET /api/account returns the documented Account', async () => {
      const res = await t.http().get('/api/account').set(user.auth).expect(200);
      expect(res.body).toEqual({
        error: 0,
        data: {
          id: user.id,
          email: user.email,
          username: user.username,
          avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}/),
          status: 'free',
          expires: null,
          registered: expect.stringMatching(DATE_TIME),
        },
      });
    });

    it('status is pro with the paid plan and its expiry, free once it lapsed', async () => {
      const [pro] = await t.db.query(`SELECT id FROM plans WHERE NOT free ORDER BY id LIMIT 1`);
      const paid = await createUser(t, {
        planId: pro.id,
        expires: new Date('2099-01-02T03:04:05Z'),
        planType: 'yearly',
      });
      const res = await t.http().get('/api/account').set(paid.auth).expect(200);
      expect(res.body.data).toMatchObject({ status: 'pro', expires: '2099-01-02 03:04:05' });
      const lapsed = await createUser(t, {
        planId: pro.id,
        expires: new Date('2020-01-01T00:00:00Z'),
      });
      expect((await t.http().get('/api/account').set(lapsed.auth)).body.data).toMatchObject({
        status: 'free',
        expires: null,
      });
    });

    it('PUT /api/account/update changes the e-mail', async () => {
      const u = await createUser(t);
      const email = `new-${u.username}@example.com`;
      const res = await t.http().put('/api/account/update').set(u.auth).send({ email }).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect((await t.http().get('/api/account').set(u.auth)).body.data.email).toBe(email);
    });

    it('PUT /api/account/update changes the user name: unique (case-insensitive), by the rule of user names', async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const username = `renamed.${u.id}`;
      await t.http().put('/api/account/update').set(u.auth).send({ username }).expect(200);
      expect((await t.http().get('/api/account').set(u.auth)).body.data.username).toBe(username);
      // its own name again, in another case: not a conflict with itself
      await t
        .http()
        .put('/api/account/update')
        .set(u.auth)
        .send({ username: username.toUpperCase() })
        .expect(200);
      expectError(
        await t
          .http()
          .put('/api/account/update')
          .set(u.auth)
          .send({ username: other.username.toUpperCase() }),
        409,
        /^username: this username is already taken$/,
      );
      for (const bad of ['ab', 'has space', 'x'.repeat(33), '']) {
        expectError(
          await t.http().put('/api/account/update').set(u.auth).send({ username: bad }),
          400,
          /^username: /,
        );
      }
      const [row] = await t.db.query(`SELECT username FROM users WHERE id = $1`, [u.id]);
      expect(row.username).toBe(username.toUpperCase());
    });

    it('PUT /api/account/update hashes a new password', async () => {
      const u = await createUser(t);
      await t
        .http()
        .put('/api/account/update')
        .set(u.auth)
        .send({ password: 'n3w-pass' })
        .expect(200);
      const [row] = await t.db.query(`SELECT password_hash FROM users WHERE id = $1`, [u.id]);
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
    });

    it('400 for an empty update, a bad e-mail, a short or non-string password', async () => {
      expectError(
        await t.http().put('/api/account/update').set(user.auth).send({}),
        400,
        /^Send at least one field to change: email, password, username$/,
      );
      expectError(
        await t.http().put('/api/account/update').set(user.auth).send({ email: 'nope' }),
        400,
        /^email/,
      );
      expectError(
        await t.http().put('/api/account/update').set(user.auth).send({ password: '1234' }),
        400,
        /^password/,
      );
      expectError(
        await t.http().put('/api/account/update').set(user.auth).send({ password: 12345 }),
        400,
        /^password/,
      );
    });

    it('400 (not 500) for null fields', async () => {
      expectError(
        await t.http().put('/api/account/update').set(user.auth).send({ email: null }),
        400,
        /^email/,
      );
      expectError(
        await t.http().put('/api/account/update').set(user.auth).send({ password: null }),
        400,
        /^password/,
      );
    });

    it('409 when the e-mail belongs to someone else (case-insensitive)', async () => {
      const other = await createUser(t);
      expectError(
        await t
          .http()
          .put('/api/account/update')
          .set(user.auth)
          .send({ email: other.email.toUpperCase() }),
        409,
        /^email/,
      );
    });
  });

  describe('health and docs', () => {
    it('GET /health and /health/ready', async () => {
      expect((await t.http().get('/health')).status).toBe(200);
      const ready = await t.http().get('/health/ready').expect(200);
      expect(ready.body.data).toEqual({
        postgres: 'up',
        redis: 'up',
        replicas: expect.any(Array),
        // THREAT_FEEDS: none in tests
        feeds: [],
      });
    });

    it('serves the OpenAPI document with the API key scheme (Bearer or Token) and the session cookie', async () => {
      const res = await t.http().get('/docs-json').expect(200);
      expect(res.body.openapi).toMatch(/^3\./);
      expect(res.body.paths['/api/account']).toBeDefined();
      expect(res.body.components.securitySchemes).toEqual({
        apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
        cookieAuth: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'lm_session' }),
      });
      expect(res.body.paths['/api/account'].get.security).toEqual([
        { apiKey: [] },
        { cookieAuth: [] },
      ]);
      expect(res.body.paths['/health'].get.security).toEqual([]);
      expect(res.body.servers).toEqual([expect.objectContaining({ url: 'http://short.test' })]);
    });
  });
});
