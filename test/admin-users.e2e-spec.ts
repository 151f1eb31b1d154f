import { randomString } from '@app/common';

import { createUser, DATE_TIME, expectError, useAdminSuite } from './support/app';

describe('admin: users', () => {
  const { t, admin, member, plans } = useAdminSuite();

  const userCount = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM users`))[0].n as number;
  /** A tag unique to one test, put in e-mails so list queries can be scoped to the test's users. */
  const newTag = () => `t${randomString(10).toLowerCase()}`;
  const newUserBody = (tag = newTag()) => ({
    username: `user_${tag}`,
    email: `${tag}@example.com`,
    password: 'secret1',
  });
  /** POST /api/user/add as `as` (by default the admin). */
  const addUser = (body: object, as = admin) =>
    t.http().post('/api/user/add').set(as.auth).send(body);

  describe('GET /api/user/:id', () => {
    it('returns the documented User with the decrypted key', async () => {
      const res = await t.http().get(`/api/user/${member.id}`).set(admin.auth).expect(200);
      expect(res.body).toEqual({
        error: 0,
        data: {
          id: member.id,
          email: member.email,
          username: member.username,
          avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}/),
          status: 'free',
          planid: plans.free,
          expires: null,
          registered: expect.stringMatching(DATE_TIME),
          apikey: member.apiKey,
        },
      });
    });

    it('shows a paid membership as pro with its expiry', async () => {
      const u = await createUser(t, {
        planId: plans.pro,
        planType: 'yearly',
        expires: new Date('2091-03-04T05:06:07Z'),
      });
      const res = await t.http().get(`/api/user/${u.id}`).set(admin.auth).expect(200);
      expect(res.body.data).toMatchObject({
        id: u.id,
        status: 'pro',
        planid: plans.pro,
        expires: '2091-03-04 05:06:07',
      });
    });

    it('404 for an unknown id, 400 for a malformed one', async () => {
      expectError(
        await t.http().get('/api/user/2000000000').set(admin.auth),
        404,
        /^User not found$/,
      );
      expectError(await t.http().get('/api/user/abc').set(admin.auth), 400, /^id: /);
      expectError(await t.http().get('/api/user/0').set(admin.auth), 400, /^id: /);
    });

    it('401 without a key, 403 for a non-admin (even for itself)', async () => {
      expectError(await t.http().get(`/api/user/${member.id}`), 401);
      expectError(await t.http().get(`/api/user/${member.id}`).set(member.auth), 403, /Admin/);
    });
  });

  describe('POST /api/user/add', () => {
    it('creates a free user with a working API key and a hashed password', async () => {
      const body = newUserBody();
      const res = await addUser(body).expect(200);
      expect(res.body).toEqual({
        error: 0,
        message: expect.stringMatching(/created/),
        data: { id: expect.any(Number), email: body.email, username: body.username },
      });
      const id = res.body.data.id;
      const view = await t.http().get(`/api/user/${id}`).set(admin.auth).expect(200);
      expect(view.body.data).toMatchObject({
        id,
        email: body.email,
        username: body.username,
        status: 'free',
        planid: plans.free,
        expires: null,
      });
      expect(view.body.data.apikey).toMatch(/^[A-Za-z0-9]{32,}$/);
      const account = await t
        .http()
        .get('/api/account')
        .set('Authorization', `Bearer ${view.body.data.apikey}`)
        .expect(200);
      expect(account.body.data).toMatchObject({ id, email: body.email });

      const [row] = await t.db.query(
        `SELECT password_hash, is_admin, api_key_enc FROM users WHERE id = $1`,
        [id],
      );
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(row.is_admin).toBe(false);
      expect(row.api_key_enc).not.toContain(view.body.data.apikey);
    });

    it('puts the user on the given plan with the given expiration', async () => {
      const body = { ...newUserBody(), planid: plans.pro, expiration: '2033-06-30 12:00:00' };
      const res = await addUser(body).expect(200);
      const view = await t.http().get(`/api/user/${res.body.data.id}`).set(admin.auth).expect(200);
      expect(view.body.data).toMatchObject({
        status: 'pro',
        planid: plans.pro,
        expires: '2033-06-30 12:00:00',
      });
    });

    it('a paid plan without expiration does not expire; a free plan ignores expiration', async () => {
      const paid = await addUser({ ...newUserBody(), planid: plans.pro }).expect(200);
      expect(
        (await t.http().get(`/api/user/${paid.body.data.id}`).set(admin.auth)).body.data,
      ).toMatchObject({
        status: 'pro',
        planid: plans.pro,
        expires: null,
      });
      const free = await addUser({
        ...newUserBody(),
        planid: plans.free,
        expiration: '2033-06-30 12:00:00',
      }).expect(200);
      expect(
        (await t.http().get(`/api/user/${free.body.data.id}`).set(admin.auth)).body.data,
      ).toMatchObject({
        status: 'free',
        planid: plans.free,
        expires: null,
      });
    });

    it('accepts the username edge cases (3 and 32 characters, . _ -)', async () => {
      const tag = newTag();
      await addUser({ ...newUserBody(tag), username: `a.${randomString(1)}` }).expect(200);
      await addUser({
        ...newUserBody(),
        username: `A-_.${randomString(28)}`,
        password: 'x'.repeat(128),
      }).expect(200);
    });

    const valid = () => newUserBody();
    it.each([
      ['username missing', { username: undefined }, /^username: /],
      ['username too short', { username: 'ab' }, /^username: must be 3 to 32 characters/],
      ['username too long', { username: 'a'.repeat(33) }, /^username: /],
      ['username with a space', { username: 'bad name' }, /^username: /],
      ['username with @', { username: 'bad@name' }, /^username: /],
      ['username not ASCII', { username: 'jörg123' }, /^username: /],
      ['username a number', { username: 12345 }, /^username: /],
      ['email missing', { email: undefined }, /^email: /],
      ['email invalid', { email: 'not-an-email' }, /^email: must be a valid e-mail address/],
      ['email too long', { email: `${'a'.repeat(250)}@example.com` }, /^email: /],
      ['email not a string', { email: ['a@b.co'] }, /^email: /],
      ['password missing', { password: undefined }, /^password: /],
      ['password too short', { password: '1234' }, /^password: must be 5 to 128 characters/],
      ['password too long', { password: 'x'.repeat(129) }, /^password: /],
      ['password a number', { password: 123456 }, /^password: /],
      ['planid a string', { planid: '2' }, /^planid: must be a positive integer \(got a string\)$/],
      ['planid a fraction', { planid: 1.5 }, /^planid: /],
      ['planid zero', { planid: 0 }, /^planid: must be a positive integer/],
      ['planid too large', { planid: 2 ** 40 }, /^planid: /],
      ['planid unknown', { planid: 2_000_000_000 }, /^planid: no plan with this id$/],
      ['expiration date only', { expiration: '2031-01-01' }, /^expiration: .*YYYY-MM-DD HH:MM:SS/],
      [
        'expiration not a calendar date',
        { expiration: '2031-02-29 00:00:00' },
        /^expiration: must be a real date-time/,
      ],
      ['expiration a number', { expiration: 1924905600 }, /^expiration: /],
      [
        'expiration in the past',
        { expiration: '2001-01-01 00:00:00' },
        /^expiration: must be in the future$/,
      ],
      ['an unknown field', { admin: true }, /^admin: unknown field$/],
    ])('400 for %s, creating nothing', async (_name, patch, message) => {
      const body: Record<string, unknown> = { ...valid(), planid: plans.pro, ...patch };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const before = await userCount();
      expectError(await addUser(body), 400, message);
      expect(await userCount()).toBe(before);
    });

    it('409 for a taken e-mail (case-insensitive) or username (case-insensitive), creating nothing', async () => {
      const before = await userCount();
      expectError(
        await addUser({ ...newUserBody(), email: member.email.toUpperCase() }),
        409,
        /^email: /,
      );
      expectError(
        await addUser({ ...newUserBody(), username: member.username.toUpperCase() }),
        409,
        /^username: /,
      );
      expect(await userCount()).toBe(before);
    });

    it('409 naming the field when concurrent requests race for one e-mail or username', async () => {
      const tag = newTag();
      const sameEmail = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          addUser({ ...newUserBody(tag), username: `race_${tag}_${i}` }),
        ),
      );
      expect(sameEmail.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const r of sameEmail.filter((x) => x.status === 409)) expectError(r, 409, /^email: /);

      const name = `race_${newTag()}`;
      const sameName = await Promise.all(
        Array.from({ length: 6 }, () => addUser({ ...newUserBody(), username: name })),
      );
      expect(sameName.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
      for (const r of sameName.filter((x) => x.status === 409)) expectError(r, 409, /^username: /);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM users WHERE email = $1 OR username = $2`,
        [`${tag}@example.com`, name],
      );
      expect(n).toBe(2);
    });

    it('401 without a key, 403 for a non-admin, creating nothing', async () => {
      const before = await userCount();
      expectError(await t.http().post('/api/user/add').send(newUserBody()), 401);
      expectError(await addUser(newUserBody(), member), 403, /Admin/);
      expect(await userCount()).toBe(before);
    });
  });

  describe('DELETE /api/user/:id/delete', () => {
    /** Gives a user one of everything it can own (rows inserted directly) and returns its link id. */
    const giveThings = async (userId: number) => {
      const tag = newTag();
      const one = async (sql: string, params: unknown[]) =>
        (await t.db.query(sql, params))[0]?.id as number;
      const domain = await one(
        `INSERT INTO domains (user_id, domain, host) VALUES ($1, $2, $3) RETURNING id`,
        [userId, `https://${tag}.example`, `${tag}.example`],
      );
      const campaign = await one(
        `INSERT INTO campaigns (user_id, name) VALUES ($1, 'c') RETURNING id`,
        [userId],
      );
      const channel = await one(
        `INSERT INTO channels (user_id, name) VALUES ($1, 'ch') RETURNING id`,
        [userId],
      );
      const pixel = await one(
        `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, 'vendor01pixel', 'p', 'x') RETURNING id`,
        [userId],
      );
      await one(
        `INSERT INTO overlays (user_id, type, name) VALUES ($1, 'message', 'o') RETURNING id`,
        [userId],
      );
      await one(`INSERT INTO splash_pages (user_id, name) VALUES ($1, 's') RETURNING id`, [userId]);
      const link = await one(
        `INSERT INTO links (user_id, alias, domain_id, url, campaign_id) VALUES ($1, $2, $3, 'https://example.com', $4) RETURNING id`,
        [userId, tag, domain, campaign],
      );
      const qrLink = await one(
        `INSERT INTO links (user_id, kind, alias, url) VALUES ($1, 'qr', $2, 'https://example.com') RETURNING id`,
        [userId, `q${tag}`],
      );
      await one(
        `INSERT INTO qr_codes (user_id, link_id, type, data) VALUES ($1, $2, 'link', '{}') RETURNING id`,
        [userId, qrLink],
      );
      await one(`INSERT INTO link_pixels (link_id, pixel_id) VALUES ($1, $2)`, [link, pixel]);
      await one(
        `INSERT INTO channel_items (channel_id, user_id, item_type, item_id) VALUES ($1, $2, 'links', $3)`,
        [channel, userId, link],
      );
      await one(`INSERT INTO link_stats_total (link_id, clicks, uniques) VALUES ($1, 5, 3)`, [
        link,
      ]);
      await one(
        `INSERT INTO login_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 hour')`,
        [userId, tag.padEnd(64, '0')],
      );
      return link;
    };
    const OWNED = [
      'links',
      'qr_codes',
      'domains',
      'campaigns',
      'channels',
      'channel_items',
      'pixels',
      'overlays',
      'splash_pages',
      'login_tokens',
    ];
    const owned = async (userId: number, linkId: number) => {
      const counts: Record<string, number> = {};
      for (const table of OWNED) {
        counts[table] = (
          await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, [userId])
        )[0].n;
      }
      for (const table of ['link_pixels', 'link_stats_total']) {
        counts[table] = (
          await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE link_id = $1`, [linkId])
        )[0].n;
      }
      return counts;
    };
    const ONE_EACH = {
      ...Object.fromEntries(OWNED.map((k) => [k, 1])),
      links: 2,
      link_pixels: 1,
      link_stats_total: 1,
    };
    const NONE = Object.fromEntries(Object.keys(ONE_EACH).map((k) => [k, 0]));

    it('deletes the user and everything it owns, and nothing of anyone else', async () => {
      const victim = await createUser(t);
      const bystander = await createUser(t);
      const victimLink = await giveThings(victim.id);
      const bystanderLink = await giveThings(bystander.id);
      expect(await owned(victim.id, victimLink)).toEqual(ONE_EACH);

      const res = await t
        .http()
        .delete(`/api/user/${victim.id}/delete`)
        .set(admin.auth)
        .expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.stringMatching(/deleted/) });

      expect(await owned(victim.id, victimLink)).toEqual(NONE);
      expect(await owned(bystander.id, bystanderLink)).toEqual(ONE_EACH);
      expect(
        (await t.db.query(`SELECT count(*)::int AS n FROM users WHERE id = $1`, [victim.id]))[0].n,
      ).toBe(0);
      expectError(await t.http().get(`/api/user/${victim.id}`).set(admin.auth), 404);
      expectError(await t.http().get('/api/account').set(victim.auth), 401, /Invalid API key/);
      expectError(
        await t.http().delete(`/api/user/${victim.id}/delete`).set(admin.auth),
        404,
        /^User not found$/,
      );
    });

    it('an admin can delete another admin', async () => {
      const other = await createUser(t, { admin: true });
      await t.http().delete(`/api/user/${other.id}/delete`).set(admin.auth).expect(200);
      expectError(await t.http().get(`/api/user/${other.id}`).set(admin.auth), 404);
    });

    it('403 when an admin deletes itself, deleting nothing', async () => {
      const self = await createUser(t, { admin: true });
      const link = await giveThings(self.id);
      expectError(
        await t.http().delete(`/api/user/${self.id}/delete`).set(self.auth),
        403,
        /your own account/,
      );
      expect(await owned(self.id, link)).toEqual(ONE_EACH);
      await t.http().get('/api/account').set(self.auth).expect(200);
    });

    it('404 for an unknown id, 400 for a malformed one', async () => {
      const before = await userCount();
      expectError(
        await t.http().delete('/api/user/2000000000/delete').set(admin.auth),
        404,
        /^User not found$/,
      );
      expectError(await t.http().delete('/api/user/x1/delete').set(admin.auth), 400, /^id: /);
      expect(await userCount()).toBe(before);
    });

    it('401 without a key, 403 for a non-admin (even on itself), deleting nothing', async () => {
      const u = await createUser(t);
      expectError(await t.http().delete(`/api/user/${u.id}/delete`), 401);
      expectError(await t.http().delete(`/api/user/${u.id}/delete`).set(member.auth), 403, /Admin/);
      expectError(await t.http().delete(`/api/user/${u.id}/delete`).set(u.auth), 403, /Admin/);
      await t.http().get(`/api/user/${u.id}`).set(admin.auth).expect(200);
    });
  });

  describe('GET /api/users', () => {
    /** Users whose e-mails carry `tag`: a free one, a pro one, a lapsed pro one and a (free) admin. */
    const population = async () => {
      const tag = newTag();
      const add = async (opts: Parameters<typeof createUser>[1], name: string) => {
        const u = await createUser(t, opts);
        const email = `${name}.${tag}@Example.com`;
        await t.db.query(`UPDATE users SET email = $1 WHERE id = $2`, [email, u.id]);
        return { ...u, email };
      };
      const free = await add({}, 'free');
      const pro = await add(
        { planId: plans.pro, planType: 'monthly', expires: new Date(Date.now() + 86_400_000) },
        'pro',
      );
      const lifetime = await add(
        { planId: plans.pro, planType: 'lifetime', expires: null },
        'life',
      );
      const lapsed = await add(
        { planId: plans.pro, planType: 'monthly', expires: new Date(Date.now() - 1000) },
        'lapsed',
      );
      const adm = await add({ admin: true }, 'admin');
      return { tag, free, pro, lifetime, lapsed, adm };
    };
    const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((u) => u.id);
    const list = (query: Record<string, string | number>, auth = admin.auth) =>
      t.http().get('/api/users').query(query).set(auth);

    it('returns {error: 0, data: [User]} newest first, the documented User per item', async () => {
      const p = await population();
      const res = await list({ email: p.tag }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'error']);
      expect(res.body.error).toBe(0);
      expect(ids(res)).toEqual([p.adm.id, p.lapsed.id, p.lifetime.id, p.pro.id, p.free.id]);
      expect(res.body.data[0]).toEqual({
        id: p.adm.id,
        email: p.adm.email,
        username: p.adm.username,
        avatar: expect.stringMatching(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}/),
        status: 'free',
        planid: plans.free,
        expires: null,
        registered: expect.stringMatching(DATE_TIME),
        apikey: p.adm.apiKey,
      });
      expect(res.body.data.map((u: { status: string }) => u.status)).toEqual([
        'free',
        'free',
        'pro',
        'pro',
        'free',
      ]);
      expect(res.body.data[3]).toMatchObject({
        status: 'pro',
        planid: plans.pro,
        expires: expect.stringMatching(DATE_TIME),
      });
      expect(res.body.data[1]).toMatchObject({ status: 'free', planid: plans.pro, expires: null });
    });

    it('the whole list without a search, newest first', async () => {
      const res = await list({}).expect(200);
      const all = ids(res);
      expect(all).toEqual([...all].sort((a, b) => b - a));
      expect(all).toContain(admin.id);
      expect(all).toContain(member.id);
    });

    it('filter=pro: an active paid plan; filter=free: the free plan or a lapsed one; filter=admin: admins', async () => {
      const p = await population();
      expect(ids(await list({ email: p.tag, filter: 'pro' }).expect(200))).toEqual([
        p.lifetime.id,
        p.pro.id,
      ]);
      expect(ids(await list({ email: p.tag, filter: 'free' }).expect(200))).toEqual([
        p.adm.id,
        p.lapsed.id,
        p.free.id,
      ]);
      expect(ids(await list({ email: p.tag, filter: 'admin' }).expect(200))).toEqual([p.adm.id]);
      const admins = await list({ filter: 'admin' }).expect(200);
      expect(ids(admins)).toContain(admin.id);
      expect(ids(admins)).not.toContain(member.id);
    });

    it('a subscription moves a user between the free and pro lists', async () => {
      const p = await population();
      const monthly = (planId: number, userId: number) =>
        t
          .http()
          .put(`/api/plan/${planId}/user/${userId}`)
          .set(admin.auth)
          .send({ type: 'monthly' });
      await monthly(plans.pro, p.free.id).expect(200);
      expect(ids(await list({ email: p.tag, filter: 'pro' }))).toEqual([
        p.lifetime.id,
        p.pro.id,
        p.free.id,
      ]);
      await monthly(plans.free, p.pro.id).expect(200);
      expect(ids(await list({ email: p.tag, filter: 'pro' }))).toEqual([p.lifetime.id, p.free.id]);
    });

    it('email search: case-insensitive substring; % and _ match only themselves', async () => {
      const p = await population();
      expect(ids(await list({ email: `PRO.${p.tag.toUpperCase()}@EXAMPLE` }))).toEqual([p.pro.id]);
      expect(ids(await list({ email: `ro.${p.tag}` }))).toEqual([p.pro.id]);
      expect(ids(await list({ email: p.adm.email }))).toEqual([p.adm.id]);
      expect(ids(await list({ email: `nobody-${p.tag}` }))).toEqual([]);
      expect(ids(await list({ email: `%.${p.tag}` }))).toEqual([]);
      expect(ids(await list({ email: `pr_.${p.tag}` }))).toEqual([]);
      const odd = await createUser(t);
      await t.db.query(`UPDATE users SET email = $1 WHERE id = $2`, [
        `50%_off.${p.tag}@example.com`,
        odd.id,
      ]);
      expect(ids(await list({ email: `50%_off.${p.tag}` }))).toEqual([odd.id]);
      expect(ids(await list({ email: `%_` }))).toContain(odd.id);
      expect(ids(await list({ email: `%_` }))).not.toContain(p.pro.id);
    });

    it('limit and page select a slice (newest first); past the end is empty', async () => {
      const p = await population();
      const all = [p.adm.id, p.lapsed.id, p.lifetime.id, p.pro.id, p.free.id];
      expect(ids(await list({ email: p.tag, limit: 2 }))).toEqual(all.slice(0, 2));
      expect(ids(await list({ email: p.tag, limit: 2, page: 1 }))).toEqual(all.slice(0, 2));
      expect(ids(await list({ email: p.tag, limit: 2, page: 2 }))).toEqual(all.slice(2, 4));
      expect(ids(await list({ email: p.tag, limit: 2, page: 3 }))).toEqual(all.slice(4));
      expect(ids(await list({ email: p.tag, limit: 2, page: 4 }).expect(200))).toEqual([]);
      expect(ids(await list({ email: p.tag, filter: 'free', limit: 1, page: 2 }))).toEqual([
        p.lapsed.id,
      ]);
    });

    it.each([
      [{ filter: 'vip' }, /^filter: must be one of admin, free, pro$/],
      [{ filter: 'PRO' }, /^filter: /],
      [{ limit: 0 }, /^limit: /],
      [{ limit: -5 }, /^limit: /],
      [{ limit: 'ten' }, /^limit: /],
      [{ limit: 1.5 }, /^limit: /],
      [{ page: 0 }, /^page: /],
      [{ page: 'last' }, /^page: /],
      [{ email: 'x'.repeat(255) }, /^email: /],
      [{ email: 'a\u0000b' }, /^email: must not contain control characters$/],
      [{ sort: 'id' }, /^sort: unknown field$/],
    ])('400 for %j', async (query, message) => {
      expectError(await list(query as Record<string, string | number>), 400, message);
    });

    it('400 when a parameter is repeated', async () => {
      expectError(
        await t.http().get('/api/users?filter=pro&filter=free').set(admin.auth),
        400,
        /^filter: /,
      );
      expectError(
        await t.http().get('/api/users?email=a&email=b').set(admin.auth),
        400,
        /^email: /,
      );
    });

    it('401 without a key, 403 for a non-admin', async () => {
      expectError(await t.http().get('/api/users'), 401);
      expectError(await list({}, member.auth), 403, /Admin/);
    });

    it('limit defaults to 100 and is clamped to 1000', async () => {
      const tag = newTag();
      await t.db.query(
        `INSERT INTO users (email, username, password_hash, plan_id, api_key_hash, api_key_enc)
         SELECT 'bulk' || g || '.' || $1 || '@example.com', 'bulk_' || $1 || '_' || g, 'x', $2,
                md5($1 || g) || md5(g || $1), (SELECT api_key_enc FROM users WHERE id = $3)
           FROM generate_series(1, 1001) AS g`,
        [tag, plans.free, member.id],
      );
      try {
        expect((await list({ email: tag }).expect(200)).body.data).toHaveLength(100);
        expect((await list({ email: tag, limit: 5000 }).expect(200)).body.data).toHaveLength(1000);
        expect(
          (await list({ email: tag, limit: 5000, page: 2 }).expect(200)).body.data,
        ).toHaveLength(1);
        expect(
          (await list({ email: tag, limit: 1000, page: 2 }).expect(200)).body.data,
        ).toHaveLength(1);
      } finally {
        await t.db.query(`DELETE FROM users WHERE email LIKE $1`, [`bulk%.${tag}@example.com`]);
      }
    });
  });

  describe('OpenAPI', () => {
    it('documents every admin and login route with its success envelope', async () => {
      const doc = (await t.http().get('/docs-json').expect(200)).body;
      const routes: [string, string, number[]][] = [
        ['/api/plans', 'get', [200, 401, 403]],
        ['/api/plan/{planid}/user/{userid}', 'put', [200, 400, 401, 403, 404]],
        ['/api/users', 'get', [200, 400, 401, 403]],
        ['/api/user/{id}', 'get', [200, 400, 401, 403, 404]],
        ['/api/user/add', 'post', [200, 400, 401, 403, 409]],
        ['/api/user/{id}/delete', 'delete', [200, 400, 401, 403, 404]],
        ['/api/user/login/{id}', 'get', [200, 400, 401, 403, 404]],
        ['/auth/login/{token}', 'get', [200, 404, 410]],
      ];
      for (const [path, method, statuses] of routes) {
        const op = doc.paths[path]?.[method];
        expect({ path, method, defined: !!op }).toEqual({ path, method, defined: true });
        for (const s of statuses)
          expect({ path, status: s, documented: !!op.responses[String(s)] }).toEqual({
            path,
            status: s,
            documented: true,
          });
        expect(op.responses['200'].content['application/json'].schema).toBeDefined();
      }
      const users = doc.paths['/api/users'].get;
      expect(users.responses['200'].content['application/json'].schema.properties.data.type).toBe(
        'array',
      );
      const params = users.parameters.map((p: { name: string }) => p.name).sort();
      expect(params).toEqual(['email', 'filter', 'limit', 'page']);
      expect(
        users.parameters.find((p: { name: string }) => p.name === 'limit').description,
      ).toMatch(/default 100/);
      expect(doc.components.schemas.PlanResponse.properties.limits).toBeDefined();
      expect(doc.components.schemas.UserResponse.properties.apikey).toBeDefined();
    });
  });
});
