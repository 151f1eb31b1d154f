import { PrincipalCache, sha256 } from '@app/common';

import { createTestApp, createUser, expectError, TestApp, TestUser } from './support/app';
import { eventually } from './support/stats';

/**
 * The API key owner cache (PrincipalCache): changes through the API reach every replica at once,
 * changes behind its back within AUTH_CACHE_SECONDS, and time-based expiry is exact.
 */
describe('API key owner cache', () => {
  let a: TestApp;
  /** A second replica whose entries would live five minutes without invalidation. */
  let b: TestApp;
  let admin: TestUser;
  let proId: number;

  const account = (app: TestApp, u: TestUser) => app.http().get('/api/account').set(u.auth);
  const emailOf = (u: TestUser) =>
    a.db
      .query(`SELECT email FROM users WHERE id = $1`, [u.id])
      .then((rows: Array<{ email: string }>) => rows[0].email);

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ AUTH_CACHE_SECONDS: '300' });
    admin = await createUser(a, { admin: true });
    [{ id: proId }] = await a.db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
    // both replicas subscribed
    await eventually(async () => {
      const probe = await createUser(a);
      await account(b, probe).expect(200);
      return b.app.get(PrincipalCache).get(sha256(probe.apiKey)) !== undefined;
    }, 5000);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('serves a key it has seen without reading its owner again (a change in SQL is not seen)', async () => {
    const u = await createUser(a);
    expect((await account(b, u).expect(200)).body.data.email).toBe(u.email);
    await a.db.query(`UPDATE users SET email = $1 WHERE id = $2`, [`sql-${u.email}`, u.id]);
    expect((await account(b, u).expect(200)).body.data.email).toBe(u.email);
    expect(await emailOf(u)).toBe(`sql-${u.email}`);
  });

  it('sees a change made in SQL once AUTH_CACHE_SECONDS have passed', async () => {
    const short = await createTestApp({ AUTH_CACHE_SECONDS: '1' });
    try {
      const u = await createUser(a);
      await account(short, u).expect(200);
      await a.db.query(`UPDATE users SET email = $1 WHERE id = $2`, [`late-${u.email}`, u.id]);
      expect((await account(short, u)).body.data.email).toBe(u.email);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await account(short, u)).body.data.email).toBe(`late-${u.email}`);
    } finally {
      await short.close();
    }
  });

  it('a plan change on one replica is in force on the other at once', async () => {
    const u = await createUser(a);
    expect((await account(b, u).expect(200)).body.data.status).toBe('free');
    await a
      .http()
      .put(`/api/plan/${proId}/user/${u.id}`)
      .set(admin.auth)
      .send({ type: 'lifetime' })
      .expect(200);
    await eventually(async () => (await account(b, u)).body.data.status === 'pro', 2000, 20);
  });

  it('an account update on one replica is seen on the other at once', async () => {
    const u = await createUser(a);
    await account(b, u).expect(200);
    const email = `new-${u.email}`;
    await a.http().put('/api/account/update').set(u.auth).send({ email }).expect(200);
    await eventually(async () => (await account(b, u)).body.data.email === email, 2000, 20);
  });

  it("a deleted user's key stops working on every replica at once", async () => {
    const u = await createUser(a);
    await account(b, u).expect(200);
    await account(a, u).expect(200);
    await a.http().delete(`/api/user/${u.id}/delete`).set(admin.auth).expect(200);
    expectError(await account(a, u), 401, /invalid api key/i);
    await eventually(async () => (await account(b, u)).status === 401, 2000, 20);
    expectError(await account(b, u), 401, /invalid api key/i);
  });

  it('a key expiring while its owner is cached is refused from that moment', async () => {
    const u = await createUser(a);
    await a.db.query(
      `UPDATE users SET api_key_expires = now() + interval '1 second' WHERE id = $1`,
      [u.id],
    );
    await account(b, u).expect(200);
    await new Promise((r) => setTimeout(r, 1100));
    expectError(await account(b, u), 401, /expired/i);
  });

  it('a paid membership lapsing while its owner is cached falls back to the free plan', async () => {
    const u = await createUser(a, {
      planId: proId,
      planType: 'monthly',
      expires: new Date(Date.now() + 1000),
    });
    expect((await account(b, u).expect(200)).body.data.status).toBe('pro');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await account(b, u).expect(200)).body.data).toMatchObject({
      status: 'free',
      expires: null,
    });
  });

  it('an unknown key is not cached: a key created afterwards works at once', async () => {
    expectError(
      await b.http().get('/api/account').set('Authorization', 'Bearer nope-nope'),
      401,
      /invalid api key/i,
    );
    const u = await createUser(a);
    await account(b, u).expect(200);
  });
});
