import {
  createTestApp,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { expectDocumented, expectPagination } from './support/resources';

describe('CTA overlays and custom splash pages (list only)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const insertOverlay = async (
    u: TestUser,
    type: 'message' | 'contact',
    name: string,
    createdAt?: string,
  ): Promise<number> => {
    const [row] = await t.db.query(
      `INSERT INTO overlays (user_id, type, name, created_at) VALUES ($1, $2, $3, COALESCE($4::timestamptz, now())) RETURNING id`,
      [u.id, type, name, createdAt ?? null],
    );
    return row.id;
  };
  const insertSplash = async (u: TestUser, name: string, createdAt?: string): Promise<number> => {
    const [row] = await t.db.query(
      `INSERT INTO splash_pages (user_id, name, created_at) VALUES ($1, $2, COALESCE($3::timestamptz, now())) RETURNING id`,
      [u.id, name, createdAt ?? null],
    );
    return row.id;
  };

  it('401 without a key', async () => {
    expectError(await t.http().get('/api/overlay'), 401);
    expectError(await t.http().get('/api/splash'), 401);
  });

  it('documents every route in the OpenAPI document, with its envelope and errors', async () => {
    await expectDocumented(
      t,
      [
        ['/api/overlay', 'get'],
        ['/api/splash', 'get'],
      ],
      [
        ['/api/overlay', 'cta'],
        ['/api/splash', 'splash'],
      ],
    );
  });

  describe('GET /api/overlay', () => {
    it("lists the caller's overlays under `cta` in the documented shape", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      await insertOverlay(other, 'message', 'Not mine');
      const a = await insertOverlay(u, 'message', 'Sign up', '2024-03-04T05:06:07Z');
      const b = await insertOverlay(u, 'contact', 'Contact us', '2024-03-05T00:00:00Z');
      expect((await t.http().get('/api/overlay').set(u.auth).expect(200)).body).toEqual({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 0,
          maxpage: 1,
          cta: [
            { id: b, type: 'contact', name: 'Contact us', date: '2024-03-05 00:00:00' },
            { id: a, type: 'message', name: 'Sign up', date: '2024-03-04 05:06:07' },
          ],
        },
      });
    });

    it('paginates', async () => {
      const u = await createUser(t);
      const ids = [
        await insertOverlay(u, 'message', 'a'),
        await insertOverlay(u, 'contact', 'b'),
        await insertOverlay(u, 'message', 'c'),
      ];
      await expectPagination(t, u, '/api/overlay', 'cta', ids);
    });

    it('an empty list for a user without overlays', async () => {
      const u = await createUser(t);
      expect((await t.http().get('/api/overlay').set(u.auth).expect(200)).body).toEqual({
        error: '0',
        data: { result: 0, perpage: 15, currentpage: 1, nextpage: 0, maxpage: 1, cta: [] },
      });
    });
  });

  describe('GET /api/splash', () => {
    it("lists the caller's splash pages under `splash` in the documented shape", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      await insertSplash(other, 'Not mine');
      const a = await insertSplash(u, 'Holiday notice', '2024-12-24T18:00:00Z');
      const b = await insertSplash(u, 'Promo');
      const body = (await t.http().get('/api/splash').set(u.auth).expect(200)).body;
      expect(body).toEqual({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 0,
          maxpage: 1,
          splash: [
            { id: b, name: 'Promo', date: expect.stringMatching(DATE_TIME) },
            { id: a, name: 'Holiday notice', date: '2024-12-24 18:00:00' },
          ],
        },
      });
    });

    it('paginates', async () => {
      const u = await createUser(t);
      const ids = [
        await insertSplash(u, 'a'),
        await insertSplash(u, 'b'),
        await insertSplash(u, 'c'),
      ];
      await expectPagination(t, u, '/api/splash', 'splash', ids);
    });
  });

  it('offers no create, update or delete routes', async () => {
    const u = await createUser(t);
    const id = await insertOverlay(u, 'message', 'x');
    const s = await insertSplash(u, 'y');
    expectError(
      await t.http().post('/api/overlay/add').set(u.auth).send({ type: 'message', name: 'n' }),
      404,
    );
    expectError(await t.http().post('/api/splash/add').set(u.auth).send({ name: 'n' }), 404);
    expectError(await t.http().delete(`/api/overlay/${id}/delete`).set(u.auth), 404);
    expectError(await t.http().delete(`/api/splash/${s}/delete`).set(u.auth), 404);
    expect((await t.http().get('/api/overlay').set(u.auth)).body.data.result).toBe(1);
    expect((await t.http().get('/api/splash').set(u.auth)).body.data.result).toBe(1);
  });
});
