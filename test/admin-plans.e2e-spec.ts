import { addMonths } from '@app/common';

import { FREE_LIMITS } from '../libs/database/src/migrations/1732200000000-initial-schema';
import { createPlan, createUser, DATE_TIME, expectError, useAdminSuite } from './support/app';

/** The documented limits keys, in order. */
const LIMIT_KEYS = [
  'links',
  'clicks',
  'retention',
  'custom',
  'multiple',
  'alias',
  'device',
  'geo',
  'bundle',
  'parameters',
  'export',
  'api',
  'team',
  'splash',
  'overlay',
  'pixels',
  'domain',
];

describe('admin: plans and subscriptions', () => {
  const { t, admin, member, plans } = useAdminSuite();

  const userRow = async (id: number) => {
    const [row] = await t.db.query(`SELECT plan_id, plan_type, expires FROM users WHERE id = $1`, [
      id,
    ]);
    return row as { plan_id: number; plan_type: string | null; expires: Date | null };
  };
  /** The user as the admin sees it (GET /api/user/:id). */
  const viewOf = async (id: number) =>
    (await t.http().get(`/api/user/${id}`).set(admin.auth).expect(200)).body.data;
  const subscribe = (
    planId: number | string,
    userId: number | string,
    body: object,
    auth = admin.auth,
  ) => t.http().put(`/api/plan/${planId}/user/${userId}`).set(auth).send(body);

  describe('GET /api/plans', () => {
    it('lists every plan, newest first, not paginated, with the seeded Free and Pro plans in full', async () => {
      const res = await t.http().get('/api/plans').set(admin.auth).expect(200);
      const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM plans`);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'error']);
      expect(res.body.error).toBe(0);
      expect(Array.isArray(res.body.data)).toBe(true);
      expect(res.body.data).toHaveLength(count);
      const ids = res.body.data.map((p: { id: number }) => p.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));

      expect(res.body.data.find((p: { id: number }) => p.id === plans.free)).toEqual({
        id: plans.free,
        name: 'Free',
        free: true,
        prices: null,
        limits: FREE_LIMITS,
      });
      expect(res.body.data.find((p: { id: number }) => p.id === plans.pro)).toEqual({
        id: plans.pro,
        name: 'Pro',
        free: false,
        prices: { monthly: 9.99, yearly: 99, lifetime: 299 },
        limits: {
          links: 0,
          clicks: 0,
          retention: 0,
          custom: { enabled: '1' },
          multiple: { enabled: '1' },
          alias: { enabled: '1' },
          device: { enabled: '1' },
          geo: { enabled: '1' },
          bundle: { enabled: '1' },
          parameters: { enabled: '1' },
          export: { enabled: '1' },
          api: { enabled: '1' },
          team: { enabled: '1', count: '10' },
          splash: { enabled: '1', count: '0' },
          overlay: { enabled: '1', count: '0' },
          pixels: { enabled: '1', count: '0' },
          domain: { enabled: '1', count: '10' },
        },
      });
      for (const plan of res.body.data) {
        expect(Object.keys(plan)).toEqual(['id', 'name', 'free', 'prices', 'limits']);
        expect(Object.keys(plan.limits)).toEqual(LIMIT_KEYS);
      }
    });

    it('shows a plan stored with partial limits as the full documented object', async () => {
      const [row] = await t.db.query(
        `INSERT INTO plans (name, free, price_monthly, price_yearly, price_lifetime, limits)
         VALUES ('Partial', false, 5, 50, NULL, '{"links": 7, "api": {"enabled": "1"}}') RETURNING id`,
      );
      const res = await t.http().get('/api/plans').set(admin.auth).expect(200);
      const plan = res.body.data.find((p: { id: number }) => p.id === row.id);
      expect(plan.prices).toEqual({ monthly: 5, yearly: 50, lifetime: null });
      expect(plan.limits).toMatchObject({
        links: 7,
        clicks: 0,
        retention: 0,
        api: { enabled: '1' },
        geo: { enabled: '0' },
      });
      expect(plan.limits.domain).toEqual({ enabled: '0', count: '0' });
      expect(Object.keys(plan.limits)).toEqual(LIMIT_KEYS);
      expect(res.body.data[0].id).toBe(row.id);
    });

    it('401 without a key, 403 for a non-admin', async () => {
      expectError(await t.http().get('/api/plans'), 401, /API key/);
      expectError(await t.http().get('/api/plans').set(member.auth), 403, /Admin/);
    });
  });

  describe('PUT /api/plan/:planid/user/:userid', () => {
    it('monthly without expiration: now + 1 month; status pro for the user and the admin', async () => {
      const u = await createUser(t);
      const before = new Date();
      const res = await subscribe(plans.pro, u.id, { type: 'monthly' }).expect(200);
      const after = new Date();
      expect(res.body).toEqual({ error: 0, message: expect.stringMatching(/subscribed/) });
      const row = await userRow(u.id);
      expect(row.plan_id).toBe(plans.pro);
      expect(row.plan_type).toBe('monthly');
      expect(row.expires!.getTime()).toBeGreaterThanOrEqual(addMonths(before, 1).getTime() - 1000);
      expect(row.expires!.getTime()).toBeLessThanOrEqual(addMonths(after, 1).getTime() + 1000);

      const view = await viewOf(u.id);
      expect(view).toMatchObject({
        status: 'pro',
        planid: plans.pro,
        expires: expect.stringMatching(DATE_TIME),
      });
      expect(
        Math.abs(new Date(`${view.expires.replace(' ', 'T')}Z`).getTime() - row.expires!.getTime()),
      ).toBeLessThan(1000);
      const account = await t.http().get('/api/account').set(u.auth).expect(200);
      expect(account.body.data).toMatchObject({ status: 'pro', expires: view.expires });
    });

    it('yearly without expiration: now + 12 months', async () => {
      const u = await createUser(t);
      const before = new Date();
      await subscribe(plans.pro, u.id, { type: 'yearly' }).expect(200);
      const after = new Date();
      const row = await userRow(u.id);
      expect(row.plan_type).toBe('yearly');
      expect(row.expires!.getTime()).toBeGreaterThanOrEqual(addMonths(before, 12).getTime() - 1000);
      expect(row.expires!.getTime()).toBeLessThanOrEqual(addMonths(after, 12).getTime() + 1000);
      // a calendar year, not 365 days: the year after now has 365 or 366 days
      const days = (row.expires!.getTime() - before.getTime()) / 86_400_000;
      expect(days).toBeGreaterThan(364.9);
      expect(days).toBeLessThan(366.1);
    });

    it('lifetime without expiration: never expires, status pro', async () => {
      const u = await createUser(t, {
        planId: plans.pro,
        planType: 'monthly',
        expires: new Date('2090-01-01T00:00:00Z'),
      });
      await subscribe(plans.pro, u.id, { type: 'lifetime' }).expect(200);
      expect(await userRow(u.id)).toEqual({
        plan_id: plans.pro,
        plan_type: 'lifetime',
        expires: null,
      });
      expect(await viewOf(u.id)).toMatchObject({ status: 'pro', planid: plans.pro, expires: null });
    });

    it('an explicit expiration is used as given, whatever the type', async () => {
      const u = await createUser(t);
      for (const [type, expiration] of [
        ['monthly', '2031-01-31 23:59:58'],
        ['lifetime', '2032-02-29 00:00:00'],
      ]) {
        await subscribe(plans.pro, u.id, { type, expiration }).expect(200);
        expect(await userRow(u.id)).toEqual({
          plan_id: plans.pro,
          plan_type: type,
          expires: new Date(`${expiration.replace(' ', 'T')}Z`),
        });
      }
      expect(await viewOf(u.id)).toMatchObject({ status: 'pro', expires: '2032-02-29 00:00:00' });
    });

    it('a free plan never expires: back to free clears the expiry', async () => {
      const u = await createUser(t, {
        planId: plans.pro,
        planType: 'yearly',
        expires: new Date('2090-01-01T00:00:00Z'),
      });
      await subscribe(plans.free, u.id, {
        type: 'monthly',
        expiration: '2031-01-01 00:00:00',
      }).expect(200);
      expect(await userRow(u.id)).toEqual({ plan_id: plans.free, plan_type: null, expires: null });
      expect(await viewOf(u.id)).toMatchObject({
        status: 'free',
        planid: plans.free,
        expires: null,
      });
    });

    it('a lapsed paid membership falls back to the free plan', async () => {
      const u = await createUser(t);
      await subscribe(plans.pro, u.id, { type: 'monthly' }).expect(200);
      await t.db.query(`UPDATE users SET expires = now() - interval '1 second' WHERE id = $1`, [
        u.id,
      ]);
      expect(await viewOf(u.id)).toMatchObject({
        status: 'free',
        planid: plans.pro,
        expires: null,
      });
      expect((await t.http().get('/api/account').set(u.auth).expect(200)).body.data).toMatchObject({
        status: 'free',
        expires: null,
      });
    });

    it('the new plan is in force at once (a plan without API access locks the user out)', async () => {
      const noApi = await createPlan(t, { api: { enabled: '0' } });
      const u = await createUser(t);
      const changePassword = (password: string) =>
        t.http().put('/api/account/update').set(u.auth).send({ password });
      await changePassword('abcdef').expect(200);
      await subscribe(noApi, u.id, { type: 'lifetime' }).expect(200);
      expectError(await changePassword('abcdefg'), 403, /API access/);
      await subscribe(plans.pro, u.id, { type: 'lifetime' }).expect(200);
      await changePassword('abcdefg').expect(200);
    });

    it.each([
      [{}, /^type: required \(must be one of monthly, yearly, lifetime\)$/],
      [{ type: 'weekly' }, /^type: /],
      [{ type: 1 }, /^type: /],
      [{ type: 'MONTHLY' }, /^type: /],
      [{ type: 'monthly', expiration: '2031-01-01' }, /^expiration: .*YYYY-MM-DD HH:MM:SS/],
      [{ type: 'monthly', expiration: '2031-01-01T00:00:00Z' }, /^expiration: /],
      [
        { type: 'monthly', expiration: '2031-02-30 00:00:00' },
        /^expiration: must be a real date-time/,
      ],
      [
        { type: 'monthly', expiration: '2031-01-01 24:00:00' },
        /^expiration: must be a real date-time/,
      ],
      [{ type: 'monthly', expiration: 1924905600 }, /^expiration: /],
      [
        { type: 'monthly', expiration: '2020-01-01 00:00:00' },
        /^expiration: must be in the future$/,
      ],
      [{ type: 'monthly', plan: 2 }, /^plan: unknown field$/],
    ])('400 for %j, changing nothing', async (body, message) => {
      const u = await createUser(t);
      const before = await userRow(u.id);
      expectError(await subscribe(plans.pro, u.id, body), 400, message);
      expect(await userRow(u.id)).toEqual(before);
    });

    it('400 naming the path parameter that is not a positive integer', async () => {
      expectError(await subscribe('abc', member.id, { type: 'monthly' }), 400, /^planid: /);
      expectError(await subscribe(0, member.id, { type: 'monthly' }), 400, /^planid: /);
      expectError(await subscribe(plans.pro, '1.5', { type: 'monthly' }), 400, /^userid: /);
      expectError(await subscribe(plans.pro, -3, { type: 'monthly' }), 400, /^userid: /);
    });

    it('404 for an unknown plan or user, changing nothing', async () => {
      const u = await createUser(t);
      const before = await userRow(u.id);
      expectError(
        await subscribe(2_000_000_000, u.id, { type: 'monthly' }),
        404,
        /^Plan not found$/,
      );
      expectError(
        await subscribe(plans.pro, 2_000_000_000, { type: 'monthly' }),
        404,
        /^User not found$/,
      );
      expect(await userRow(u.id)).toEqual(before);
    });

    it('401 without a key, 403 for a non-admin (even on itself), changing nothing', async () => {
      const before = await userRow(member.id);
      expectError(
        await t.http().put(`/api/plan/${plans.pro}/user/${member.id}`).send({ type: 'lifetime' }),
        401,
      );
      expectError(
        await subscribe(plans.pro, member.id, { type: 'lifetime' }, member.auth),
        403,
        /Admin/,
      );
      expect(await userRow(member.id)).toEqual(before);
    });
  });
});
