import { createHash, randomBytes } from 'node:crypto';

import { PrincipalCache, sha256 } from '@app/common';

import {
  createPlan,
  createTestApp,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
  useTestApp,
} from './support/app';
import { apiRoutes, expectPagination, insertLink, onePage } from './support/resources';
import { eventually } from './support/stats';

const ROUTES = apiRoutes({
  'GET /api/team': { list: 'members' },
  'POST /api/team/add': { body: { email: 'a@example.com', role: 'viewer' } },
  'PUT /api/team/{id}/update': { body: { role: 'viewer' } },
  'DELETE /api/team/{id}/delete': {},
  'GET /api/workspaces': {},
});

type Role = 'admin' | 'editor' | 'viewer';

describe('team', () => {
  const t = useTestApp();
  /** team enabled, count 0: unlimited */
  let unlimited: number;
  /** team enabled, count 2 */
  let capped: number;

  beforeAll(async () => {
    unlimited = await createPlan(t, { team: { enabled: '1', count: '0' } });
    capped = await createPlan(t, { team: { enabled: '1', count: '2' } });
  });

  const owner = () => createUser(t, { planId: unlimited });
  /** `u`'s key acting in workspace `id`. */
  const inWs = (u: TestUser, id: number) => ({ ...u.auth, 'X-Workspace': String(id) });

  const addAs = (headers: Record<string, string>, body: object) =>
    t.http().post('/api/team/add').set(headers).send(body);
  const add = (o: TestUser, body: object) => addAs(o.auth, body);
  const list = (o: TestUser, query = '') => t.http().get(`/api/team${query}`).set(o.auth);
  const update = (o: TestUser, id: number | string, body: object) =>
    t.http().put(`/api/team/${id}/update`).set(o.auth).send(body);
  const remove = (o: TestUser, id: number | string) =>
    t.http().delete(`/api/team/${id}/delete`).set(o.auth);
  /** `GET path` acting in workspace `ws`, expecting the 404 of a workspace the caller is not a member of. */
  const expectNotInWorkspace = async (u: TestUser, ws: number, path = '/api/urls') =>
    expectError(
      await t.http().get(path).set(inWs(u, ws)),
      404,
      /^Workspace not found \(X-Workspace\)$/,
    );

  /** Adds `m` to `o`'s workspace as `role`; returns the membership id. */
  async function join(o: TestUser, m: TestUser, role: Role): Promise<number> {
    const res = await add(o, { email: m.email, role });
    expect(res.status).toBe(200);
    return res.body.id;
  }

  /** Inserts a named key of `u` for workspace `ws` (the keys routes are another module's). */
  async function insertKey(u: TestUser, ws: number, scopes = ['*']) {
    const key = `nk_${randomBytes(16).toString('hex')}`;
    const [row] = await t.db.query(
      `INSERT INTO api_keys (workspace_id, user_id, name, prefix, key_hash, scopes)
       VALUES ($1, $2, 'ci', $3, $4, $5) RETURNING id`,
      [ws, u.id, key.slice(0, 8), createHash('sha256').update(key).digest('hex'), scopes],
    );
    return { id: row.id as number, auth: { Authorization: `Bearer ${key}` } };
  }

  const auditOf = (ws: number) =>
    t.db.query(
      `SELECT actor_id, actor_email, key_id, action, resource_type, resource_id, changes
         FROM audit_log WHERE workspace_id = $1 ORDER BY id`,
      [ws],
    );

  ROUTES.itChecksEveryRoute(t);

  describe('POST /api/team/add and GET /api/team', () => {
    it('adds an existing user by e-mail (any case) and lists it in the documented shape', async () => {
      const o = await owner();
      const m = await createUser(t);
      const res = await add(o, { email: m.email.toUpperCase(), role: 'editor' }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(
        ['date', 'email', 'error', 'id', 'role', 'userid', 'username'].sort(),
      );
      const [row] = await t.db.query(
        `SELECT id, workspace_id, user_id, role, created_at FROM workspace_members WHERE user_id = $1`,
        [m.id],
      );
      const entry = {
        id: row.id,
        userid: m.id,
        email: m.email,
        username: m.username,
        role: 'editor',
        date: row.created_at.toISOString().slice(0, 19).replace('T', ' '),
      };
      expect(entry.date).toMatch(DATE_TIME);
      expect(res.body).toEqual({ error: 0, ...entry });
      expect(row).toMatchObject({ workspace_id: o.id, user_id: m.id, role: 'editor' });
      expect((await list(o).expect(200)).body).toEqual(onePage('members', [entry]));
    });

    it("lists only the workspace's members, paginated newest first", async () => {
      const o = await owner();
      const other = await owner();
      await join(other, await createUser(t), 'viewer');
      const ids: number[] = [];
      for (const role of ['viewer', 'editor', 'admin'] as const)
        ids.push(await join(o, await createUser(t), role));
      await expectPagination(t, o, '/api/team', 'members', ids);
      const roles = (await list(o).expect(200)).body.data.members.map(
        (e: { role: string }) => e.role,
      );
      expect(roles).toEqual(['admin', 'editor', 'viewer']);
    });

    it.each([
      ['missing email', { role: 'viewer' }, /^email: /],
      ['an e-mail that is not one', { email: 'nope', role: 'viewer' }, /^email: must be a valid/],
      ['a numeric email', { email: 5, role: 'viewer' }, /^email: /],
      [
        'missing role',
        { email: 'x@example.com' },
        /^role: required \(must be one of admin, editor, viewer\)$/,
      ],
      ['role owner', { email: 'x@example.com', role: 'owner' }, /^role: must be one of/],
      ['role Admin', { email: 'x@example.com', role: 'Admin' }, /^role: must be one of/],
      ['a null role', { email: 'x@example.com', role: null }, /^role: /],
      [
        'an unknown field',
        { email: 'x@example.com', role: 'viewer', workspace: 1 },
        /workspace: unknown field/,
      ],
    ])('400 for %s, adding nobody', async (_label, body, message) => {
      const o = await owner();
      expectError(await add(o, body), 400, message);
      expect((await list(o).expect(200)).body.data.result).toBe(0);
    });

    it('404 naming email when no user has the e-mail', async () => {
      const o = await owner();
      expectError(
        await add(o, { email: `nobody${Date.now()}@example.com`, role: 'viewer' }),
        404,
        /^email: no user has this e-mail address$/,
      );
    });

    it('400 for yourself or the owner, 409 for a member already there', async () => {
      const o = await owner();
      const a = await createUser(t);
      const v = await createUser(t);
      expectError(
        await add(o, { email: o.email, role: 'admin' }),
        400,
        /^email: you cannot add yourself$/,
      );
      await join(o, a, 'admin');
      const vid = await join(o, v, 'viewer');
      expectError(
        await addAs(inWs(a, o.id), { email: o.email, role: 'viewer' }),
        400,
        /^email: this user is the workspace's owner$/,
      );
      expectError(
        await addAs(inWs(a, o.id), { email: a.email, role: 'viewer' }),
        400,
        /^email: you cannot add yourself$/,
      );
      expectError(
        await add(o, { email: v.email, role: 'admin' }),
        409,
        new RegExp(`^email: this user is already a member of the workspace \\(id ${vid}\\)$`),
      );
      const roles = await t.db.query(
        `SELECT role FROM workspace_members WHERE workspace_id = $1 ORDER BY id`,
        [o.id],
      );
      expect(roles).toEqual([{ role: 'admin' }, { role: 'viewer' }]);
    });

    it('403 naming the feature when the owner plan lacks team (the free plan)', async () => {
      const o = await createUser(t, { plan: 'Free' });
      const m = await createUser(t);
      expectError(
        await add(o, { email: m.email, role: 'viewer' }),
        403,
        /^Your plan does not include the "team" feature$/,
      );
      expect((await list(o).expect(200)).body.data.result).toBe(0);
    });

    it("403 past the plan's team count; a removal frees a place; admins are not limited", async () => {
      const o = await createUser(t, { planId: capped });
      const first = await join(o, await createUser(t), 'viewer');
      await join(o, await createUser(t), 'viewer');
      const third = await createUser(t);
      expectError(
        await add(o, { email: third.email, role: 'viewer' }),
        403,
        /^Plan limit reached: your plan allows 2 team$/,
      );
      await remove(o, first).expect(200);
      await join(o, third, 'viewer');

      const admin = await createUser(t, { admin: true, plan: 'Free' });
      await join(admin, await createUser(t), 'viewer');
    });

    it('the count holds under concurrent adds', async () => {
      const o = await createUser(t, { planId: capped });
      const users = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t)));
      const statuses = (
        await Promise.all(users.map((u) => add(o, { email: u.email, role: 'viewer' })))
      ).map((r) => r.status);
      expect(statuses.sort()).toEqual([200, 200, 403, 403, 403]);
      expect((await list(o).expect(200)).body.data.result).toBe(2);
    });
  });

  describe('PUT /api/team/:id/update', () => {
    it("changes the role and answers the member's entry", async () => {
      const o = await owner();
      const m = await createUser(t);
      const id = await join(o, m, 'viewer');
      const res = await update(o, id, { role: 'admin' }).expect(200);
      expect(res.body).toEqual({
        error: 0,
        id,
        userid: m.id,
        email: m.email,
        username: m.username,
        role: 'admin',
        date: expect.stringMatching(DATE_TIME),
      });
      expect((await list(o).expect(200)).body.data.members[0].role).toBe('admin');
    });

    it.each([
      ['a bad role', { role: 'owner' }, /^role: must be one of admin, editor, viewer$/],
      ['no role', {}, /^role: /],
      ['an e-mail', { role: 'viewer', email: 'x@example.com' }, /email: unknown field/],
    ])('400 for %s, changing nothing', async (_label, body, message) => {
      const o = await owner();
      const id = await join(o, await createUser(t), 'editor');
      expectError(await update(o, id, body), 400, message);
      expect((await list(o).expect(200)).body.data.members[0].role).toBe('editor');
    });

    it("404 for an unknown id, another workspace's member and the owner's user id", async () => {
      const o = await owner();
      const other = await owner();
      const m = await createUser(t);
      const theirs = await join(other, m, 'viewer');
      expectError(await update(o, 2_000_000_000, { role: 'admin' }), 404, /^Member not found$/);
      expectError(await update(o, theirs, { role: 'admin' }), 404, /^Member not found$/);
      expectError(await update(o, o.id, { role: 'admin' }), 404, /^Member not found$/);
      expectError(await update(o, 'abc', { role: 'admin' }), 400, /^id: /);
      expect((await list(other).expect(200)).body.data.members[0].role).toBe('viewer');
    });

    it("a lowered role holds on the member's next request", async () => {
      const o = await owner();
      const m = await createUser(t);
      const id = await join(o, m, 'editor');
      await t
        .http()
        .post('/api/url/add')
        .set(inWs(m, o.id))
        .send({ url: 'https://example.com/editor' })
        .expect(200);
      await update(o, id, { role: 'viewer' }).expect(200);
      expectError(
        await t
          .http()
          .post('/api/url/add')
          .set(inWs(m, o.id))
          .send({ url: 'https://example.com/viewer' }),
        403,
        /^This needs the role editor in this workspace; yours is viewer$/,
      );
    });
  });

  describe('DELETE /api/team/:id/delete', () => {
    it('removes the member: gone from the list, and its next request in the workspace is a 404', async () => {
      const o = await owner();
      const m = await createUser(t);
      const id = await join(o, m, 'viewer');
      await t.http().get('/api/urls').set(inWs(m, o.id)).expect(200); // cached from here on
      expect((await remove(o, id).expect(200)).body).toEqual({
        error: 0,
        message: 'Member has been removed successfully.',
      });
      expect((await list(o).expect(200)).body.data.result).toBe(0);
      await expectNotInWorkspace(m, o.id);
      // its own workspace is untouched
      await t.http().get('/api/urls').set(m.auth).expect(200);
      expectError(await remove(o, id), 404, /^Member not found$/);
    });

    it("deletes the keys the member made for the workspace, which stop working at once; others' stay", async () => {
      const o = await owner();
      const other = await owner();
      const m = await createUser(t);
      const keeper = await createUser(t);
      const id = await join(o, m, 'editor');
      await join(other, m, 'viewer');
      await join(o, keeper, 'viewer');
      const link = await insertLink(t, o.id);
      const key = await insertKey(m, o.id);
      const elsewhere = await insertKey(m, other.id, ['links:read']);
      const ownKey = await insertKey(m, m.id, ['links:read']);
      const keepers = await insertKey(keeper, o.id, ['links:read']);

      const urls = await t.http().get('/api/urls').set(key.auth).expect(200);
      expect(urls.body.data.urls.map((l: { id: number }) => l.id)).toEqual([link.id]);

      await remove(o, id).expect(200);
      expectError(await t.http().get('/api/urls').set(key.auth), 401, /^Invalid API key$/);
      const left = await t.db.query(`SELECT id FROM api_keys WHERE id = ANY($1) ORDER BY id`, [
        [key.id, elsewhere.id, ownKey.id, keepers.id],
      ]);
      expect(left.map((r: { id: number }) => r.id)).toEqual([elsewhere.id, ownKey.id, keepers.id]);
      await t.http().get('/api/urls').set(elsewhere.auth).expect(200);
      await t.http().get('/api/urls').set(ownKey.auth).expect(200);
      await t.http().get('/api/urls').set(keepers.auth).expect(200);
    });

    it("404 for an unknown id, another workspace's member and the owner (it has no membership)", async () => {
      const o = await owner();
      const other = await owner();
      const theirs = await join(other, await createUser(t), 'viewer');
      const admin = await createUser(t);
      await join(o, admin, 'admin');
      expectError(await remove(o, 2_000_000_000), 404, /^Member not found$/);
      expectError(await remove(o, theirs), 404, /^Member not found$/);
      expectError(await remove(o, o.id), 404, /^Member not found$/);
      // an admin of the workspace cannot remove its owner either
      expectError(
        await t.http().delete(`/api/team/${o.id}/delete`).set(inWs(admin, o.id)),
        404,
        /^Member not found$/,
      );
      expect((await list(other).expect(200)).body.data.result).toBe(1);
    });

    it("deleting the owner's account drops its members' place in the workspace at once", async () => {
      const o = await owner();
      const m = await createUser(t);
      const root = await createUser(t, { admin: true });
      await join(o, m, 'viewer');
      await t.http().get('/api/urls').set(inWs(m, o.id)).expect(200);
      await t.http().delete(`/api/user/${o.id}/delete`).set(root.auth).expect(200);
      await expectNotInWorkspace(m, o.id);
      expect(
        await t.db.query(`SELECT id FROM workspace_members WHERE user_id = $1`, [m.id]),
      ).toEqual([]);
    });
  });

  describe('members acting with X-Workspace', () => {
    it("a viewer reads the owner's links but cannot create one nor add a member", async () => {
      const o = await owner();
      const v = await createUser(t);
      await join(o, v, 'viewer');
      const link = await insertLink(t, o.id);
      const urls = await t.http().get('/api/urls').set(inWs(v, o.id)).expect(200);
      expect(urls.body.data.urls.map((l: { id: number }) => l.id)).toEqual([link.id]);
      await t.http().get('/api/team').set(inWs(v, o.id)).expect(200);
      expectError(
        await t
          .http()
          .post('/api/url/add')
          .set(inWs(v, o.id))
          .send({ url: 'https://example.com/' }),
        403,
        /^This needs the role editor in this workspace; yours is viewer$/,
      );
      const other = await createUser(t);
      expectError(
        await addAs(inWs(v, o.id), { email: other.email, role: 'viewer' }),
        403,
        /^This needs the role admin in this workspace; yours is viewer$/,
      );
    });

    it('an editor creates a link that belongs to the owner, and cannot change members', async () => {
      const o = await owner();
      const e = await createUser(t);
      const id = await join(o, e, 'editor');
      const res = await t
        .http()
        .post('/api/url/add')
        .set(inWs(e, o.id))
        .send({ url: 'https://example.com/by-editor' })
        .expect(200);
      const [row] = await t.db.query(`SELECT user_id FROM links WHERE id = $1`, [res.body.id]);
      expect(row.user_id).toBe(o.id);
      const other = await createUser(t);
      expectError(
        await addAs(inWs(e, o.id), { email: other.email, role: 'viewer' }),
        403,
        /^This needs the role admin in this workspace; yours is editor$/,
      );
      expectError(
        await t.http().put(`/api/team/${id}/update`).set(inWs(e, o.id)).send({ role: 'admin' }),
        403,
        /needs the role admin/,
      );
      expectError(
        await t.http().delete(`/api/team/${id}/delete`).set(inWs(e, o.id)),
        403,
        /needs the role admin/,
      );
    });

    it("an admin adds, changes and removes members of the owner's workspace, under the owner's plan", async () => {
      const o = await createUser(t, { planId: capped });
      const a = await createUser(t, { plan: 'Free' }); // its own plan has no team: the owner's counts
      await join(o, a, 'admin');
      const m = await createUser(t);
      const res = await addAs(inWs(a, o.id), { email: m.email, role: 'viewer' }).expect(200);
      const [row] = await t.db.query(
        `SELECT workspace_id, user_id FROM workspace_members WHERE id = $1`,
        [res.body.id],
      );
      expect(row).toEqual({ workspace_id: o.id, user_id: m.id });
      await t
        .http()
        .put(`/api/team/${res.body.id}/update`)
        .set(inWs(a, o.id))
        .send({ role: 'editor' })
        .expect(200);
      const third = await createUser(t);
      expectError(
        await addAs(inWs(a, o.id), { email: third.email, role: 'viewer' }),
        403,
        /^Plan limit reached: your plan allows 2 team$/,
      );
      await t.http().delete(`/api/team/${res.body.id}/delete`).set(inWs(a, o.id)).expect(200);
      expect(
        (await t.http().get('/api/team').set(inWs(a, o.id)).expect(200)).body.data.members.map(
          (e: { userid: number }) => e.userid,
        ),
      ).toEqual([a.id]);
    });

    it('a workspace the caller is not a member of is a 404', async () => {
      const o = await owner();
      const stranger = await createUser(t);
      await expectNotInWorkspace(stranger, o.id, '/api/team');
    });

    it('a member added after a refused request acts at once ("not a member" is not kept)', async () => {
      const o = await owner();
      const m = await createUser(t);
      await expectNotInWorkspace(m, o.id);
      await join(o, m, 'viewer');
      await t.http().get('/api/urls').set(inWs(m, o.id)).expect(200);
    });
  });

  describe('GET /api/workspaces', () => {
    it('lists your own workspace first, then your memberships, whatever X-Workspace says', async () => {
      const m = await createUser(t);
      const a = await owner();
      const b = await owner();
      await join(b, m, 'admin');
      await join(a, m, 'viewer');
      const expected = {
        error: 0,
        data: [
          { id: m.id, name: m.username, role: 'owner' },
          { id: b.id, name: b.username, role: 'admin' },
          { id: a.id, name: a.username, role: 'viewer' },
        ],
      };
      expect((await t.http().get('/api/workspaces').set(m.auth).expect(200)).body).toEqual(
        expected,
      );
      expect((await t.http().get('/api/workspaces').set(inWs(m, a.id)).expect(200)).body).toEqual(
        expected,
      );
      const alone = await createUser(t);
      expect((await t.http().get('/api/workspaces').set(alone.auth).expect(200)).body).toEqual({
        error: 0,
        data: [{ id: alone.id, name: alone.username, role: 'owner' }],
      });
    });

    it('a named key sees only the workspace it acts in, and needs team:read', async () => {
      const m = await createUser(t);
      const a = await owner();
      const b = await owner();
      await join(a, m, 'editor');
      await join(b, m, 'viewer');
      const key = await insertKey(m, a.id, ['team:read']);
      expect((await t.http().get('/api/workspaces').set(key.auth).expect(200)).body).toEqual({
        error: 0,
        data: [{ id: a.id, name: a.username, role: 'editor' }],
      });
      const linksOnly = await insertKey(m, a.id, ['links:read']);
      expectError(
        await t.http().get('/api/workspaces').set(linksOnly.auth),
        403,
        /^This key lacks the scope team:read$/,
      );
    });
  });

  describe('webhooks and the audit log', () => {
    it('member.added and member.removed are queued for subscribed webhooks in the change', async () => {
      const o = await owner();
      const m = await createUser(t);
      const hook = await t
        .http()
        .post('/api/webhook/add')
        .set(o.auth)
        .send({ url: 'https://hooks.example.com/team', events: ['member.added', 'member.removed'] })
        .expect(200);
      const other = await t
        .http()
        .post('/api/webhook/add')
        .set(o.auth)
        .send({ url: 'https://hooks.example.com/links', events: ['link.created'] })
        .expect(200);
      const added = (await add(o, { email: m.email, role: 'editor' }).expect(200)).body;
      await update(o, added.id, { role: 'viewer' }).expect(200);
      await remove(o, added.id).expect(200);
      const rows = await t.db.query(
        `SELECT webhook_id, event, data FROM webhook_deliveries WHERE webhook_id = ANY($1) ORDER BY id`,
        [[hook.body.id, other.body.id]],
      );
      const data = {
        id: added.id,
        userid: m.id,
        email: m.email,
        username: m.username,
        date: added.date,
      };
      expect(rows).toEqual([
        { webhook_id: hook.body.id, event: 'member.added', data: { ...data, role: 'editor' } },
        { webhook_id: hook.body.id, event: 'member.removed', data: { ...data, role: 'viewer' } },
      ]);
      // refused changes queue nothing
      expectError(await remove(o, added.id), 404);
      expectError(await add(o, { email: o.email, role: 'viewer' }), 400);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`,
        [hook.body.id],
      );
      expect(n).toBe(2);
    });

    it('writes one audit entry per change, with the actor, the key and field names only', async () => {
      const o = await owner();
      const a = await createUser(t);
      const m = await createUser(t);
      const aid = await join(o, a, 'admin');
      const key = await insertKey(a, o.id, ['team:write']);
      const mid = (await addAs(key.auth, { email: m.email, role: 'viewer' }).expect(200)).body.id;
      await t
        .http()
        .put(`/api/team/${mid}/update`)
        .set(inWs(a, o.id))
        .send({ role: 'editor' })
        .expect(200);
      await remove(o, mid).expect(200);
      // refused changes write nothing
      expectError(await remove(o, mid), 404);
      expectError(await update(o, mid, { role: 'admin' }), 404);
      expectError(await add(o, { email: o.email, role: 'viewer' }), 400);

      const entry = (
        actor: TestUser,
        keyId: number | null,
        action: string,
        id: number,
        changes: string[],
      ) => ({
        actor_id: actor.id,
        actor_email: actor.email,
        key_id: keyId,
        action,
        resource_type: 'member',
        resource_id: String(id),
        changes,
      });
      expect(await auditOf(o.id)).toEqual([
        entry(o, null, 'member.add', aid, ['email', 'role']),
        entry(a, key.id, 'member.add', mid, ['email', 'role']),
        entry(a, null, 'member.update', mid, ['role']),
        entry(o, null, 'member.remove', mid, []),
      ]);
      expect(await auditOf(a.id)).toEqual([]);
    });
  });
  describe('on another replica', () => {
    /** A second api whose cached entries would live five minutes without invalidation. */
    let b: TestApp;

    beforeAll(async () => {
      b = await createTestApp({ AUTH_CACHE_SECONDS: '300' });
      // subscribed to the invalidation bus
      await eventually(async () => {
        const probe = await createUser(t);
        await b.http().get('/api/account').set(probe.auth).expect(200);
        return b.app.get(PrincipalCache).get(sha256(probe.apiKey)) !== undefined;
      }, 5000);
    });
    afterAll(() => b?.close());

    /** `u`'s GET /api/urls in workspace `ws` on replica b: its status. */
    const statusOnB = async (headers: Record<string, string>) =>
      (await b.http().get('/api/urls').set(headers)).status;

    it('a removal holds there within a second, for the member and its keys', async () => {
      const o = await owner();
      const m = await createUser(t);
      const id = await join(o, m, 'viewer');
      const key = await insertKey(m, o.id, ['links:read']);
      expect(await statusOnB(inWs(m, o.id))).toBe(200);
      expect(await statusOnB(key.auth)).toBe(200);
      await remove(o, id).expect(200);
      const removed = Date.now();
      await eventually(async () => (await statusOnB(inWs(m, o.id))) === 404, 1000, 20);
      await eventually(async () => (await statusOnB(key.auth)) === 401, 1000, 20);
      expect(Date.now() - removed).toBeLessThan(1000);
    });

    it('a lowered role holds there within a second', async () => {
      const o = await owner();
      const m = await createUser(t);
      const id = await join(o, m, 'editor');
      const create = () =>
        b.http().post('/api/url/add').set(inWs(m, o.id)).send({ url: 'https://example.com/b' });
      await create().expect(200);
      await update(o, id, { role: 'viewer' }).expect(200);
      await eventually(async () => (await create()).status === 403, 1000, 20);
    });
  });
});
