import { PIXEL_TYPES } from '@app/database';

import { createPlan, createUser, DATE_TIME, expectError, useTestApp } from './support/app';
import { apiRoutes, countOwned, insertLink, resourceApi } from './support/resources';

const pixel = (n = 1) => ({ type: 'vendor01pixel', name: `Pixel ${n}`, tag: `AW-${n}` });

const ROUTES = apiRoutes({
  'GET /api/pixels': { list: 'pixels' },
  'POST /api/pixel/add': { body: pixel() },
  'PUT /api/pixel/{id}/update': { body: { tag: 'x' } },
  'DELETE /api/pixel/{id}/delete': {},
});

describe('pixels', () => {
  const t = useTestApp();
  let unlimitedPlan: number;

  beforeAll(async () => {
    unlimitedPlan = await createPlan(t, { pixels: { enabled: '1', count: '0' } });
  });

  const { add, list, update, remove, onePage, expectPagination } = resourceApi(
    t,
    'pixel',
    '/api/pixels',
    'pixels',
  );

  ROUTES.itChecksEveryRoute(t);

  describe('POST /api/pixel/add and GET /api/pixels', () => {
    it('creates a pixel and lists it in the documented shape', async () => {
      const u = await createUser(t);
      const res = await add(u, { type: 'vendor09', name: 'Shop', tag: 'G-ABC_12.3:x-y' }).expect(
        200,
      );
      expect(res.body).toEqual({ error: 0, id: expect.any(Number) });
      const body = (await list(u).expect(200)).body;
      expect(body).toEqual(
        onePage([
          {
            id: res.body.id,
            type: 'vendor09',
            name: 'Shop',
            tag: 'G-ABC_12.3:x-y',
            date: expect.stringMatching(DATE_TIME),
          },
        ]),
      );
      const [row] = await t.db.query(`SELECT created_at FROM pixels WHERE id = $1`, [res.body.id]);
      expect(body.data.pixels[0].date).toBe(
        row.created_at.toISOString().slice(0, 19).replace('T', ' '),
      );
    });

    it('accepts each of the 13 documented types', async () => {
      const u = await createUser(t, { planId: unlimitedPlan });
      for (const type of PIXEL_TYPES) await add(u, { type, name: type, tag: 't' }).expect(200);
      const { data } = (await list(u, '?limit=100').expect(200)).body;
      expect(data.pixels.map((p: { type: string }) => p.type).sort()).toEqual(
        [...PIXEL_TYPES].sort(),
      );
      expect(PIXEL_TYPES).toHaveLength(13);
    });

    it("lists only the caller's pixels, paginated newest first", async () => {
      const u = await createUser(t, { planId: unlimitedPlan });
      const other = await createUser(t, { planId: unlimitedPlan });
      await add(other, pixel(9)).expect(200);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await add(u, pixel(i)).expect(200)).body.id);
      await expectPagination(u, ids);
    });

    it.each([
      ['missing type', { name: 'n', tag: 't' }, /^type: /],
      [
        'unknown type vendor14',
        { type: 'vendor14', name: 'n', tag: 't' },
        /^type: must be one of vendor01pixel/,
      ],
      ['upper-case type', { type: 'VENDOR01PIXEL', name: 'n', tag: 't' }, /^type: /],
      ['vendor09pixel (no such type)', { type: 'vendor09pixel', name: 'n', tag: 't' }, /^type: /],
      ['numeric type', { type: 1, name: 'n', tag: 't' }, /^type: /],
      ['missing name', { type: 'vendor01pixel', tag: 't' }, /^name: /],
      ['empty name', { type: 'vendor01pixel', name: '', tag: 't' }, /^name: must be 1 to 100/],
      [
        '101-character name',
        { type: 'vendor01pixel', name: 'x'.repeat(101), tag: 't' },
        /^name: must be 1 to 100/,
      ],
      ['numeric name', { type: 'vendor01pixel', name: 5, tag: 't' }, /^name: /],
      ['missing tag', { type: 'vendor01pixel', name: 'n' }, /^tag: /],
      [
        'tag <script>',
        { type: 'vendor01pixel', name: 'n', tag: '<script>alert(1)</script>' },
        /^tag: must be 1 to 255 of/,
      ],
      ['tag with a space', { type: 'vendor01pixel', name: 'n', tag: 'a b' }, /^tag: /],
      ['tag with quotes', { type: 'vendor01pixel', name: 'n', tag: '"onload="x' }, /^tag: /],
      ['empty tag', { type: 'vendor01pixel', name: 'n', tag: '' }, /^tag: /],
      ['256-character tag', { type: 'vendor01pixel', name: 'n', tag: 'a'.repeat(256) }, /^tag: /],
      ['numeric tag', { type: 'vendor01pixel', name: 'n', tag: 123 }, /^tag: /],
      ['null tag', { type: 'vendor01pixel', name: 'n', tag: null }, /^tag: /],
      [
        'unknown field',
        { ...{ type: 'vendor01pixel', name: 'n', tag: 't' }, user_id: 1 },
        /user_id: unknown field/,
      ],
    ])('400 for %s, storing nothing', async (_label, body, message) => {
      const u = await createUser(t);
      expectError(await add(u, body), 400, message);
      expect(await countOwned(t, 'pixels', u.id)).toBe(0);
    });

    it('accepts a 255-character tag and a 100-character name', async () => {
      const u = await createUser(t);
      await add(u, { type: 'vendor13', name: 'n'.repeat(100), tag: 'a'.repeat(255) }).expect(200);
    });
  });

  describe('plan limits', () => {
    it("403 naming the limit once the plan's count is reached (free plan: 2)", async () => {
      const u = await createUser(t);
      await add(u, pixel(1)).expect(200);
      await add(u, pixel(2)).expect(200);
      expectError(await add(u, pixel(3)), 403, /Plan limit reached: your plan allows 2 pixels/);
      expect(await countOwned(t, 'pixels', u.id)).toBe(2);
    });

    it('403 with a count of 1, and after a delete the slot is free again', async () => {
      const plan = await createPlan(t, { pixels: { enabled: '1', count: '1' } });
      const u = await createUser(t, { planId: plan });
      const { id } = (await add(u, pixel(1)).expect(200)).body;
      expectError(await add(u, pixel(2)), 403, /pixels/);
      await remove(u, id).expect(200);
      await add(u, pixel(3)).expect(200);
    });

    it('403 when the plan has pixels disabled', async () => {
      const plan = await createPlan(t, { pixels: { enabled: '0', count: '0' } });
      const u = await createUser(t, { planId: plan });
      expectError(await add(u, pixel()), 403, /"pixels" feature/);
      expect(await countOwned(t, 'pixels', u.id)).toBe(0);
    });

    it('concurrent adds cannot pass the count', async () => {
      const plan = await createPlan(t, { pixels: { enabled: '1', count: '2' } });
      const u = await createUser(t, { planId: plan });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => add(u, pixel(i))));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 403, 403, 403, 403]);
      expect(await countOwned(t, 'pixels', u.id)).toBe(2);
    });

    it('admins are not limited', async () => {
      const plan = await createPlan(t, { pixels: { enabled: '0', count: '0' } });
      const admin = await createUser(t, { admin: true, planId: plan });
      await add(admin, pixel()).expect(200);
    });
  });

  describe('PUT /api/pixel/:id/update', () => {
    it('changes tag and name; tag alone keeps the name', async () => {
      const u = await createUser(t);
      const { id } = (await add(u, pixel(1)).expect(200)).body;
      const res = await update(u, id, { name: 'Renamed', tag: 'NEW-1' }).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      await update(u, id, { tag: 'NEW-2' }).expect(200);
      expect((await list(u)).body.data.pixels[0]).toMatchObject({
        id,
        type: 'vendor01pixel',
        name: 'Renamed',
        tag: 'NEW-2',
      });
    });

    it('400 without tag, for bad values and for the type; nothing changes', async () => {
      const u = await createUser(t);
      const { id } = (await add(u, pixel(1)).expect(200)).body;
      const put = (body: object) => update(u, id, body);
      expectError(await put({ name: 'x' }), 400, /^tag: /);
      expectError(await put({}), 400, /^tag: /);
      expectError(await put({ tag: '<img>' }), 400, /^tag: /);
      expectError(await put({ tag: 'ok', name: '' }), 400, /^name: /);
      expectError(await put({ tag: 'ok', name: null }), 400, /^name: /);
      expectError(await put({ tag: 'ok', type: 'vendor02pixel' }), 400, /type: unknown field/);
      expectError(await update(u, 'abc', { tag: 'ok' }), 400, /^id: /);
      expect((await list(u)).body.data.pixels[0]).toMatchObject({
        id,
        type: 'vendor01pixel',
        name: 'Pixel 1',
        tag: 'AW-1',
      });
    });

    it("404 for an unknown id and for another user's pixel, which stays unchanged", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const { id } = (await add(owner, pixel(1)).expect(200)).body;
      expectError(await update(intruder, id, { tag: 'stolen' }), 404, /Pixel not found/);
      expectError(await update(owner, 2147483647, { tag: 'x' }), 404, /Pixel not found/);
      expect((await list(owner)).body.data.pixels[0].tag).toBe('AW-1');
    });
  });

  describe('DELETE /api/pixel/:id/delete', () => {
    it('deletes the pixel and its link assignments', async () => {
      const u = await createUser(t);
      const { id } = (await add(u, pixel(1)).expect(200)).body;
      const link = await insertLink(t, u.id);
      await t.db.query(`INSERT INTO link_pixels (link_id, pixel_id) VALUES ($1, $2)`, [
        link.id,
        id,
      ]);
      const res = await remove(u, id).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect((await list(u)).body.data).toMatchObject({ result: 0, pixels: [] });
      expect(await t.db.query(`SELECT 1 FROM link_pixels WHERE pixel_id = $1`, [id])).toHaveLength(
        0,
      );
      expect(await t.db.query(`SELECT 1 FROM links WHERE id = $1`, [link.id])).toHaveLength(1);
      expectError(await remove(u, id), 404);
    });

    it("404 for another user's pixel, which stays", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const { id } = (await add(owner, pixel(1)).expect(200)).body;
      expectError(await remove(intruder, id), 404, /Pixel not found/);
      expectError(await remove(owner, 0), 400, /^id: /);
      expect(await countOwned(t, 'pixels', owner.id)).toBe(1);
    });
  });
});
