import { KEY_USAGE_INTERVAL_MS, PrincipalCache, SCOPES, sha256 } from '@app/common';

import { MAX_KEYS } from '../apps/api/src/keys/keys.service';
import {
  createTestApp,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { apiRoutes, expectPagination, onePage } from './support/resources';
import { eventually } from './support/stats';

type Headers = Record<string, string>;

const ROUTES = apiRoutes({
  'GET /api/keys': { list: 'keys' },
  'POST /api/key/add': { body: { name: 'k', scopes: ['links:read'] } },
  'PUT /api/key/{id}/update': { body: { name: 'k' } },
  'DELETE /api/key/{id}/delete': {},
});

const KEY_FORMAT = /^lk_[A-Za-z0-9]{40}$/;
const bearer = (key: string): Headers => ({ Authorization: `Bearer ${key}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `YYYY-MM-DD HH:MM:SS` (UTC) of a date. */
const dateTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Named API keys (CONTRACT "Teams, workspaces and API keys"): the four routes and their answers,
 * every refusal, scopes and roles in force on other routes, revocation and scope changes on every
 * replica within a second, members' keys, the audit entries, and `lastused`.
 */
describe('named API keys', () => {
  let a: TestApp;
  /** A second replica whose cached keys would live five minutes without invalidation. */
  let b: TestApp;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ AUTH_CACHE_SECONDS: '300' });
    // both replicas hear invalidations before the tests rely on it
    await eventually(async () => {
      const probe = await createUser(a);
      await b.http().get('/api/account').set(probe.auth).expect(200);
      return b.app.get(PrincipalCache).get(sha256(probe.apiKey)) !== undefined;
    }, 5000);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const list = (as: Headers, query = '', t = a) => t.http().get(`/api/keys${query}`).set(as);
  const add = (as: Headers, body: object, t = a) =>
    t.http().post('/api/key/add').set(as).send(body);
  const update = (as: Headers, id: number | string, body: object, t = a) =>
    t.http().put(`/api/key/${id}/update`).set(as).send(body);
  const remove = (as: Headers, id: number | string, t = a) =>
    t.http().delete(`/api/key/${id}/delete`).set(as);
  /** A new key of `u`'s workspace (or the one `as` acts in): its id, key and headers. */
  const makeKey = async (as: Headers, scopes: string[], extra: object = {}) => {
    const res = await add(as, { name: `key ${scopes.join(' ')}`, scopes, ...extra }).expect(200);
    return { id: res.body.id as number, key: res.body.key as string, auth: bearer(res.body.key) };
  };
  const links = (as: Headers, t = a) => t.http().get('/api/urls').set(as);
  const addLink = (as: Headers, t = a) =>
    t.http().post('/api/url/add').set(as).send({ url: 'https://example.com/by-key' });
  const keyRow = async (id: number) => {
    const [row] = await a.db.query(`SELECT * FROM api_keys WHERE id = $1`, [id]);
    return row;
  };
  const keyCount = async (workspaceId: number): Promise<number> => {
    const [row] = await a.db.query(
      `SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1`,
      [workspaceId],
    );
    return row.n;
  };
  const auditOf = (workspaceId: number) =>
    a.db.query(
      `SELECT action, resource_type, resource_id, changes, actor_id, actor_email, key_id
         FROM audit_log WHERE workspace_id = $1 ORDER BY id`,
      [workspaceId],
    );
  /** Makes `member` a member of `owner`'s workspace in SQL (the team routes are another module's). */
  const join = async (owner: TestUser, member: TestUser, role: 'admin' | 'editor' | 'viewer') => {
    await a.db.query(
      `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)`,
      [owner.id, member.id, role],
    );
    await a.app.get(PrincipalCache).forgetMember(owner.id, member.id);
  };
  const inWorkspace = (member: TestUser, owner: TestUser): Headers => ({
    ...member.auth,
    'X-Workspace': String(owner.id),
  });

  it('401 on every route without a key', () => ROUTES.expectKeyRequired(a));

  describe('OpenAPI', () => {
    it('documents the routes, the scopes as an enum and the list entry field by field', async () => {
      await ROUTES.expectDocumented(a);
      const doc = (await a.http().get('/docs-json').expect(200)).body;
      const { schemas } = doc.components;
      expect(schemas.AddKeyDto.properties.scopes).toMatchObject({
        type: 'array',
        items: { type: 'string', enum: [...SCOPES] },
        minItems: 1,
      });
      expect(schemas.AddKeyDto.required).toEqual(['name', 'scopes']);
      expect(schemas.UpdateKeyDto.properties.scopes.items.enum).toEqual([...SCOPES]);
      expect(schemas.UpdateKeyDto.required ?? []).toEqual([]);
      expect(Object.keys(schemas.KeyView.properties).sort()).toEqual(
        ['date', 'expires', 'id', 'lastused', 'name', 'prefix', 'scopes', 'workspace'].sort(),
      );
      expect(schemas.KeyView.properties.scopes.items.enum).toEqual([...SCOPES]);
      expect(Object.keys(schemas.KeyCreatedView.properties).sort()).toEqual(['id', 'key']);
    });
  });

  describe('POST /api/key/add and GET /api/keys', () => {
    it('answers {error, id, key} once; stores the digest and a prefix; lists it field by field', async () => {
      const u = await createUser(a);
      const res = await add(u.auth, {
        name: 'CI deploys',
        scopes: ['stats:read', 'links:write', 'stats:read'],
        expires: '2031-05-06 07:08:09',
      }).expect(200);
      expect(res.body).toEqual({ error: 0, id: expect.any(Number), key: expect.any(String) });
      const { id, key } = res.body;
      expect(key).toMatch(KEY_FORMAT);

      const row = await keyRow(id);
      expect(row).toMatchObject({
        workspace_id: u.id,
        user_id: u.id,
        name: 'CI deploys',
        prefix: key.slice(0, 10),
        key_hash: sha256(key),
        scopes: ['links:write', 'stats:read'],
        last_used: null,
      });
      expect(row.expires.toISOString()).toBe('2031-05-06T07:08:09.000Z');
      // the key itself is kept nowhere
      expect(JSON.stringify(row)).not.toContain(key);

      const body = (await list(u.auth).expect(200)).body;
      expect(body).toEqual(
        onePage('keys', [
          {
            id,
            name: 'CI deploys',
            prefix: key.slice(0, 10),
            scopes: ['links:write', 'stats:read'],
            workspace: u.id,
            expires: '2031-05-06 07:08:09',
            lastused: null,
            date: dateTime(row.created_at),
          },
        ]),
      );
      expect(body.data.keys[0].date).toMatch(DATE_TIME);
      expect(JSON.stringify(body)).not.toContain(key.slice(10));
    });

    it('makes a key without expiry (left out or null), and takes an ISO 8601 expiry with its offset', async () => {
      const u = await createUser(a);
      const none = await makeKey(u.auth, ['links:read']);
      const nulled = await makeKey(u.auth, ['links:read'], { expires: null });
      const iso = await makeKey(u.auth, ['links:read'], { expires: '2032-01-31T14:00:00+02:00' });
      const zulu = await makeKey(u.auth, ['links:read'], { expires: '2032-02-01T00:30Z' });
      const byId = Object.fromEntries(
        (await list(u.auth).expect(200)).body.data.keys.map((k: { id: number }) => [k.id, k]),
      );
      expect(byId[none.id].expires).toBeNull();
      expect(byId[nulled.id].expires).toBeNull();
      expect(byId[iso.id].expires).toBe('2032-01-31 12:00:00');
      expect(byId[zulu.id].expires).toBe('2032-02-01 00:30:00');
      for (const k of [none, nulled, iso, zulu]) await links(k.auth).expect(200);
      expect(none.key).not.toBe(nulled.key);
    });

    it("lists only the workspace's keys, paginated newest first", async () => {
      const u = await createUser(a);
      const other = await createUser(a);
      await makeKey(other.auth, ['links:read']);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await makeKey(u.auth, ['links:read'])).id);
      await expectPagination(a, u, '/api/keys', 'keys', ids);
    });

    it.each([
      ['missing name', { scopes: ['links:read'] }, /^name: required/],
      ['empty name', { name: '', scopes: ['links:read'] }, /^name: must be 1 to 64 characters/],
      [
        'name of 65 characters',
        { name: 'n'.repeat(65), scopes: ['links:read'] },
        /^name: must be 1 to 64 characters/,
      ],
      [
        'blank name',
        { name: '   ', scopes: ['links:read'] },
        /^name: must be 1 to 64 characters, not only spaces, no control characters$/,
      ],
      [
        'a control character in name',
        { name: 'a\u0000b', scopes: ['links:read'] },
        /^name: must be 1 to 64 characters, not only spaces, no control characters$/,
      ],
      [
        'a line break in name',
        { name: 'a\nb', scopes: ['links:read'] },
        /^name: must be 1 to 64 characters, not only spaces, no control characters$/,
      ],
      ['name a number', { name: 5, scopes: ['links:read'] }, /^name: must be a string/],
      ['missing scopes', { name: 'n' }, /^scopes: required/],
      ['empty scopes', { name: 'n', scopes: [] }, /^scopes: must be a non-empty list of scopes/],
      ['scopes a string', { name: 'n', scopes: 'links:read' }, /^scopes: must be a non-empty/],
      ['a scope a number', { name: 'n', scopes: [1] }, /^scopes: each item must be a string/],
      [
        'an unknown scope',
        { name: 'n', scopes: ['links:read', 'links:admin'] },
        /^scopes: unknown scope "links:admin"; each scope is \* or <area>:read/,
      ],
      [
        'an unknown area',
        { name: 'n', scopes: ['users:read'] },
        /^scopes: unknown scope "users:read"/,
      ],
      [
        'a long unknown scope',
        { name: 'n', scopes: ['x'.repeat(5000)] },
        /^scopes: unknown scope "x{40}…"; each scope/,
      ],
      [
        'too many scopes',
        { name: 'n', scopes: Array(SCOPES.length + 1).fill('links:read') },
        /^scopes: must be a non-empty list of scopes \(at most 29\)/,
      ],
      [
        'expires in the past',
        { name: 'n', scopes: ['links:read'], expires: '2020-01-01 00:00:00' },
        /^expires: must be in the future$/,
      ],
      [
        'expires in the past (ISO)',
        { name: 'n', scopes: ['links:read'], expires: '2020-01-01T00:00:00Z' },
        /^expires: must be in the future$/,
      ],
      [
        'expires not a date',
        { name: 'n', scopes: ['links:read'], expires: 'tomorrow' },
        /^expires: must be a date-time YYYY-MM-DD HH:MM:SS \(UTC\) or ISO 8601/,
      ],
      [
        'expires without a time zone in ISO form',
        { name: 'n', scopes: ['links:read'], expires: '2030-01-01T00:00:00' },
        /^expires: must be a date-time/,
      ],
      [
        'expires on February 30th',
        { name: 'n', scopes: ['links:read'], expires: '2030-02-30 00:00:00' },
        /^expires: is not a real date-time$/,
      ],
      [
        'expires a number',
        { name: 'n', scopes: ['links:read'], expires: 1893456000 },
        /^expires: must be a string/,
      ],
      [
        'an unknown field',
        { name: 'n', scopes: ['links:read'], workspace: 3 },
        /^workspace: unknown field$/,
      ],
      ['a key sent', { name: 'n', scopes: ['links:read'], key: 'lk_x' }, /^key: unknown field$/],
    ])('400 for %s, and nothing stored', async (_case, body, message) => {
      const u = await createUser(a);
      expectError(await add(u.auth, body), 400, message);
      expect(await keyCount(u.id)).toBe(0);
    });

    it(`403 past ${MAX_KEYS.max} keys per workspace`, async () => {
      const u = await createUser(a);
      await a.db.query(
        `INSERT INTO api_keys (workspace_id, user_id, name, prefix, key_hash, scopes)
         SELECT $1, $1, 'bulk', 'lk_bulk', md5(random()::text) || md5(random()::text), '{links:read}'
           FROM generate_series(1, $2)`,
        [u.id, MAX_KEYS.max - 1],
      );
      await makeKey(u.auth, ['links:read']);
      expectError(
        await add(u.auth, { name: 'one too many', scopes: ['links:read'] }),
        403,
        /^Limit reached: a workspace may have 100 API keys$/,
      );
      expect(await keyCount(u.id)).toBe(MAX_KEYS.max);
    });

    it('concurrent adds cannot pass the cap together', async () => {
      const u = await createUser(a);
      await a.db.query(
        `INSERT INTO api_keys (workspace_id, user_id, name, prefix, key_hash, scopes)
         SELECT $1, $1, 'bulk', 'lk_bulk', md5(random()::text) || md5(random()::text), '{links:read}'
           FROM generate_series(1, $2)`,
        [u.id, MAX_KEYS.max - 2],
      );
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => add(u.auth, { name: `race ${i}`, scopes: ['*'] })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 403, 403, 403]);
      expect(await keyCount(u.id)).toBe(MAX_KEYS.max);
    });
  });

  describe('PUT /api/key/:id/update and DELETE /api/key/:id/delete', () => {
    it('changes only the fields sent, null removing the expiry', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read'], { expires: '2031-01-01 00:00:00' });
      const entry = async () => (await list(u.auth).expect(200)).body.data.keys[0];
      const before = await entry();

      expect((await update(u.auth, k.id, { name: 'renamed' }).expect(200)).body).toEqual({
        error: 0,
        message: 'API key has been updated successfully.',
      });
      expect(await entry()).toEqual({ ...before, name: 'renamed' });

      await update(u.auth, k.id, { scopes: ['qr:write', 'links:write'] }).expect(200);
      expect(await entry()).toEqual({
        ...before,
        name: 'renamed',
        scopes: ['links:write', 'qr:write'],
      });

      await update(u.auth, k.id, { expires: '2033-03-03T03:03:03Z' }).expect(200);
      expect((await entry()).expires).toBe('2033-03-03 03:03:03');
      await update(u.auth, k.id, { expires: null }).expect(200);
      expect(await entry()).toEqual({
        ...before,
        name: 'renamed',
        scopes: ['links:write', 'qr:write'],
        expires: null,
      });
      expect((await keyRow(k.id)).key_hash).toBe(sha256(k.key));
    });

    it.each([
      ['no field', {}, /^Send at least one field to change: expires, name, scopes$/],
      ['name null', { name: null }, /^name: /],
      ['scopes null', { scopes: null }, /^scopes: /],
      ['an empty name', { name: '' }, /^name: must be 1 to 64 characters/],
      ['empty scopes', { scopes: [] }, /^scopes: must be a non-empty list/],
      ['an unknown scope', { scopes: ['stats:write', 'nope'] }, /^scopes: unknown scope "nope"/],
      [
        'expires in the past',
        { expires: '2001-01-01 00:00:00' },
        /^expires: must be in the future/,
      ],
      ['expires malformed', { expires: '2030-1-1' }, /^expires: must be a date-time/],
      ['an unknown field', { prefix: 'lk_mine' }, /^prefix: unknown field$/],
    ])('400 for %s, and nothing changed', async (_case, body, message) => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      const before = await keyRow(k.id);
      expectError(await update(u.auth, k.id, body), 400, message);
      expect(await keyRow(k.id)).toEqual(before);
    });

    it('revokes a key: 401 at once, then 404 for its id', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      await links(k.auth).expect(200);
      expect((await remove(u.auth, k.id).expect(200)).body).toEqual({
        error: 0,
        message: 'API key has been deleted successfully.',
      });
      expectError(await links(k.auth), 401, /^Invalid API key$/);
      expect(await keyRow(k.id)).toBeUndefined();
      expectError(await remove(u.auth, k.id), 404, /^API key not found$/);
      expectError(await update(u.auth, k.id, { name: 'x' }), 404, /^API key not found$/);
    });

    it("404 for another workspace's key and for an unknown id; 400 for a malformed id", async () => {
      const u = await createUser(a);
      const other = await createUser(a);
      const theirs = await makeKey(other.auth, ['links:read']);
      const before = await keyRow(theirs.id);
      expectError(await update(u.auth, theirs.id, { name: 'mine' }), 404, /^API key not found$/);
      expectError(await remove(u.auth, theirs.id), 404, /^API key not found$/);
      expect(await keyRow(theirs.id)).toEqual(before);
      await links(theirs.auth).expect(200);
      expectError(await update(u.auth, 2147483647, { name: 'x' }), 404, /^API key not found$/);
      expectError(await remove(u.auth, 2147483647), 404, /^API key not found$/);
      for (const bad of ['0', 'abc', '1.5', '2147483648']) {
        expectError(await update(u.auth, bad, { name: 'x' }), 400, /^id: must be a positive/);
        expectError(await remove(u.auth, bad), 400, /^id: must be a positive/);
      }
    });
  });

  describe('scopes in force', () => {
    it('links:read lists links but may not create one; links:write creates in the workspace', async () => {
      const u = await createUser(a);
      const read = await makeKey(u.auth, ['links:read']);
      const write = await makeKey(u.auth, ['links:write']);
      await links(read.auth).expect(200);
      expectError(await addLink(read.auth), 403, /^This key lacks the scope links:write$/);
      const made = await addLink(write.auth).expect(200);
      const [link] = await a.db.query(`SELECT user_id FROM links WHERE id = $1`, [made.body.id]);
      expect(link.user_id).toBe(u.id);
      await links(write.auth).expect(200);
      // neither reaches another area, nor the owner's routes
      expectError(
        await a.http().get('/api/pixels').set(write.auth),
        403,
        /lacks the scope pixels:read$/,
      );
      expectError(await list(write.auth), 403, /^This key lacks the scope keys:read$/);
      expectError(
        await a.http().get('/api/account').set(write.auth),
        403,
        /^This key lacks the scope \*/,
      );
    });

    it('a * key does what its creator can: owner routes, keys, links', async () => {
      const u = await createUser(a);
      const star = await makeKey(u.auth, ['*']);
      expect((await a.http().get('/api/account').set(star.auth).expect(200)).body.data.id).toBe(
        u.id,
      );
      await addLink(star.auth).expect(200);
      await list(star.auth).expect(200);
      const child = await makeKey(star.auth, ['*']);
      await a.http().get('/api/account').set(child.auth).expect(200);
    });

    it('an expired key gets 401 "API key has expired"', async () => {
      const u = await createUser(a);
      const soon = await makeKey(u.auth, ['links:read'], {
        expires: new Date(Date.now() + 1500).toISOString(),
      });
      await links(soon.auth).expect(200);
      await links(soon.auth, b).expect(200);
      await sleep(1600);
      expectError(await links(soon.auth), 401, /^API key has expired$/);
      expectError(await links(soon.auth, b), 401, /^API key has expired$/);
      // and a past expiry set behind the API's back is seen once the key is forgotten
      const k = await makeKey(u.auth, ['links:read']);
      await a.db.query(`UPDATE api_keys SET expires = now() - interval '1 minute' WHERE id = $1`, [
        k.id,
      ]);
      await a.app.get(PrincipalCache).forgetKeys([k.id]);
      expectError(await links(k.auth), 401, /^API key has expired$/);
    });

    it('a scope lowered is in force at once, and raised again', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:write']);
      await addLink(k.auth).expect(200);
      await update(u.auth, k.id, { scopes: ['links:read'] }).expect(200);
      expectError(await addLink(k.auth), 403, /^This key lacks the scope links:write$/);
      await links(k.auth).expect(200);
      await update(u.auth, k.id, { scopes: ['links:write'] }).expect(200);
      await addLink(k.auth).expect(200);
    });

    it('the personal v3 key is unchanged: every route, keys included, and rotation', async () => {
      const u = await createUser(a);
      await a.http().get('/api/account').set(u.auth).expect(200);
      await addLink(u.auth).expect(200);
      await list(u.auth).expect(200);
      const k = await makeKey(u.auth, ['*']);
      // rotating the personal key leaves the named keys working
      const rotated = await a.http().post('/api/account/key/rotate').set(u.auth).expect(200);
      expectError(await links(u.auth), 401, /^Invalid API key$/);
      await links(bearer(rotated.body.apikey)).expect(200);
      await links(k.auth).expect(200);
      const [audit] = await a.db.query(
        `SELECT key_id FROM audit_log WHERE workspace_id = $1 AND action = 'key.create'`,
        [u.id],
      );
      expect(audit.key_id).toBeNull();
    });

    it('X-Workspace naming another workspace is a 404 for a named key; its own is fine', async () => {
      const u = await createUser(a);
      const other = await createUser(a);
      const k = await makeKey(u.auth, ['*']);
      const link = (await addLink(k.auth).expect(200)).body.id;
      // (a route that documents 404: the X-Workspace 404 is not documented on every route yet)
      expectError(
        await a
          .http()
          .get(`/api/url/${link}`)
          .set({ ...k.auth, 'X-Workspace': String(other.id) }),
        404,
        /^Workspace not found \(X-Workspace\)$/,
      );
      await a
        .http()
        .get('/api/urls')
        .set({ ...k.auth, 'X-Workspace': String(u.id) })
        .expect(200);
    });
  });

  describe('keys making keys', () => {
    it('needs keys:write; never grants more than the calling key holds (* only from *)', async () => {
      const u = await createUser(a);
      const linksOnly = await makeKey(u.auth, ['links:write']);
      expectError(
        await add(linksOnly.auth, { name: 'n', scopes: ['links:read'] }),
        403,
        /^This key lacks the scope keys:write$/,
      );
      const reader = await makeKey(u.auth, ['keys:read']);
      await list(reader.auth).expect(200);
      expectError(
        await add(reader.auth, { name: 'n', scopes: ['links:read'] }),
        403,
        /^This key lacks the scope keys:write$/,
      );

      const maker = await makeKey(u.auth, ['keys:write', 'links:read', 'stats:write']);
      const before = await keyCount(u.id);
      for (const [scopes, lacking] of [
        [['links:write'], 'links:write'],
        [['links:read', 'domains:read'], 'domains:read'],
        [['*'], '\\*'],
      ] as const)
        expectError(
          await add(maker.auth, { name: 'n', scopes }),
          403,
          new RegExp(`^scopes: this key lacks the scope ${lacking}, so it cannot give it`),
        );
      expect(await keyCount(u.id)).toBe(before);
      // within its own scopes (write covers read)
      const child = await makeKey(maker.auth, ['links:read', 'stats:read', 'keys:write']);
      await links(child.auth).expect(200);
      // nor may it raise a key past itself by an update
      expectError(
        await update(maker.auth, child.id, { scopes: ['links:write'] }),
        403,
        /^scopes: this key lacks the scope links:write/,
      );
      await update(maker.auth, child.id, { scopes: ['links:read'] }).expect(200);
      expect((await keyRow(child.id)).scopes).toEqual(['links:read']);
      // the audit names the key that acted
      const entries = await auditOf(u.id);
      expect(
        entries.find((e: { resource_id: string }) => e.resource_id === String(child.id)),
      ).toMatchObject({ action: 'key.create', key_id: maker.id, actor_id: u.id });
    });
  });

  describe('members (workspace_members rows made in SQL)', () => {
    it('a viewer or editor may neither list nor make keys (role admin needed)', async () => {
      const owner = await createUser(a);
      const viewer = await createUser(a);
      const editor = await createUser(a);
      await join(owner, viewer, 'viewer');
      await join(owner, editor, 'editor');
      for (const [m, role] of [
        [viewer, 'viewer'],
        [editor, 'editor'],
      ] as const) {
        expectError(
          await add(inWorkspace(m, owner), { name: 'n', scopes: ['links:write'] }),
          403,
          new RegExp(`^This needs the role admin in this workspace; yours is ${role}$`),
        );
        expectError(await list(inWorkspace(m, owner)), 403, /needs the role admin/);
      }
      expect(await keyCount(owner.id)).toBe(0);
    });

    it("an admin's key acts in the workspace, within the admin's role, until the membership ends", async () => {
      const owner = await createUser(a);
      const member = await createUser(a);
      await join(owner, member, 'admin');
      const k = await makeKey(inWorkspace(member, owner), ['*']);
      expect(await keyRow(k.id)).toMatchObject({ workspace_id: owner.id, user_id: member.id });
      // listed in the workspace, not in the member's own
      const ownerList = (await list(owner.auth).expect(200)).body.data.keys;
      expect(ownerList.map((x: { id: number }) => x.id)).toEqual([k.id]);
      expect(ownerList[0].workspace).toBe(owner.id);
      expect((await list(member.auth).expect(200)).body.data.keys).toEqual([]);

      // acts in the owner's workspace without X-Workspace; * is the admin's role, not the owner's
      const made = await addLink(k.auth).expect(200);
      const [link] = await a.db.query(`SELECT user_id FROM links WHERE id = $1`, [made.body.id]);
      expect(link.user_id).toBe(owner.id);
      expectError(
        await a.http().get('/api/account').set(k.auth),
        403,
        /^This needs the role owner in this workspace; yours is admin$/,
      );
      expectError(
        await a
          .http()
          .get(`/api/url/${made.body.id}`)
          .set({ ...k.auth, 'X-Workspace': String(member.id) }),
        404,
        /^Workspace not found \(X-Workspace\)$/,
      );

      // the role lowered to editor: the key follows at once
      await a.db.query(
        `UPDATE workspace_members SET role = 'editor' WHERE workspace_id = $1 AND user_id = $2`,
        [owner.id, member.id],
      );
      await a.app.get(PrincipalCache).forgetMember(owner.id, member.id);
      await addLink(k.auth).expect(200);
      expectError(
        await add(k.auth, { name: 'n', scopes: ['links:read'] }),
        403,
        /^This needs the role admin in this workspace; yours is editor$/,
      );

      // the membership removed: the key stops working, here and on the other replica
      await links(k.auth, b).expect(200);
      await a.db.query(`DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, [
        owner.id,
        member.id,
      ]);
      await a.app.get(PrincipalCache).forgetMember(owner.id, member.id);
      expectError(await links(k.auth), 401, /^Invalid API key$/);
      await eventually(async () => (await links(k.auth, b)).status === 401, 1000, 20);
    });

    it("an admin may change the workspace's keys but not give * to a key it did not make", async () => {
      const owner = await createUser(a);
      const member = await createUser(a);
      await join(owner, member, 'admin');
      const owners = await makeKey(owner.auth, ['links:read']);
      const as = inWorkspace(member, owner);
      const before = await keyRow(owners.id);
      expectError(
        await update(as, owners.id, { scopes: ['*'] }),
        403,
        /^scopes: only the key's creator or the workspace's owner may give it the scope \*$/,
      );
      expect(await keyRow(owners.id)).toEqual(before);
      await update(as, owners.id, { scopes: ['links:write', 'domains:write'] }).expect(200);
      // the owner may; the member its own key
      const mine = await makeKey(as, ['links:read']);
      await update(as, mine.id, { scopes: ['*'] }).expect(200);
      await update(owner.auth, mine.id, { scopes: ['links:read'] }).expect(200);
      await update(owner.auth, mine.id, { scopes: ['*'] }).expect(200);
      await remove(as, owners.id).expect(200);
      expectError(await links(owners.auth), 401, /^Invalid API key$/);
      // the member's own workspace does not hold the owner's keys
      expectError(await remove(member.auth, mine.id), 404, /^API key not found$/);
    });
  });

  describe('revocation across replicas', () => {
    it('a key revoked on replica A is refused on replica B within 1 s', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      await links(k.auth, b).expect(200);
      expect(b.app.get(PrincipalCache).get(sha256(k.key))).toMatchObject({
        key: { id: k.id, scopes: ['links:read'] },
      });
      await remove(u.auth, k.id).expect(200);
      const revoked = Date.now();
      await eventually(async () => (await links(k.auth, b)).status === 401, 1000, 20);
      expect(Date.now() - revoked).toBeLessThan(1000);
      expectError(await links(k.auth, b), 401, /^Invalid API key$/);
    });

    it('a scope lowered on replica A holds on replica B within 1 s', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:write']);
      await addLink(k.auth, b).expect(200);
      await update(u.auth, k.id, { scopes: ['links:read'] }).expect(200);
      await eventually(async () => (await addLink(k.auth, b)).status === 403, 1000, 20);
      await links(k.auth, b).expect(200);
    });

    it('without the invalidation replica B would keep the key (the test can fail)', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      await links(k.auth, b).expect(200);
      await a.db.query(`DELETE FROM api_keys WHERE id = $1`, [k.id]);
      await sleep(300);
      await links(k.auth, b).expect(200);
      await a.app.get(PrincipalCache).forgetKeys([k.id]);
      await eventually(async () => (await links(k.auth, b)).status === 401, 1000, 20);
    });
  });

  describe('audit', () => {
    it('writes key.create, key.update and key.delete with field names, never the key', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read'], { expires: '2031-01-01 00:00:00' });
      const plain = await makeKey(u.auth, ['links:read']);
      await update(u.auth, k.id, { scopes: ['links:write'], name: 'renamed' }).expect(200);
      await update(u.auth, k.id, { expires: null }).expect(200);
      await remove(u.auth, plain.id).expect(200);
      // refused changes write nothing
      expectError(await update(u.auth, k.id, {}), 400);
      expectError(await add(u.auth, { name: 'n', scopes: ['nope'] }), 400);
      expectError(await remove(u.auth, plain.id), 404);

      const entry = (action: string, id: number, changes: string[]) => ({
        action,
        resource_type: 'key',
        resource_id: String(id),
        changes,
        actor_id: u.id,
        actor_email: u.email,
        key_id: null,
      });
      const entries = await auditOf(u.id);
      expect(entries).toEqual([
        entry('key.create', k.id, ['expires', 'name', 'scopes']),
        entry('key.create', plain.id, ['name', 'scopes']),
        entry('key.update', k.id, ['name', 'scopes']),
        entry('key.update', k.id, ['expires']),
        entry('key.delete', plain.id, []),
      ]);
      expect(JSON.stringify(entries)).not.toContain(k.key.slice(3));
    });

    it("a member's change is the workspace's entry, with the member as actor", async () => {
      const owner = await createUser(a);
      const member = await createUser(a);
      await join(owner, member, 'admin');
      const k = await makeKey(inWorkspace(member, owner), ['links:read']);
      expect(await auditOf(owner.id)).toEqual([
        {
          action: 'key.create',
          resource_type: 'key',
          resource_id: String(k.id),
          changes: ['name', 'scopes'],
          actor_id: member.id,
          actor_email: member.email,
          key_id: null,
        },
      ]);
      expect(await auditOf(member.id)).toEqual([]);
    });
  });

  describe('lastused', () => {
    const lastUsed = async (id: number): Promise<Date | null> => (await keyRow(id)).last_used;

    it('is written after a use, off the request path, at most once a minute per key', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      expect((await list(u.auth).expect(200)).body.data.keys[0].lastused).toBeNull();
      expect(await lastUsed(k.id)).toBeNull();

      const usedAt = Date.now();
      await links(k.auth).expect(200);
      await eventually(async () => (await lastUsed(k.id)) !== null, 2000, 20);
      const written = (await lastUsed(k.id)) as Date;
      expect(Math.abs(written.getTime() - usedAt)).toBeLessThan(5000);
      expect((await list(u.auth).expect(200)).body.data.keys[0].lastused).toBe(dateTime(written));

      // one replica won the minute: the Redis marker lives for it
      const marker = a.redis.key('keyused', k.id);
      const ttl = await a.redis.client.ttl(marker);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(KEY_USAGE_INTERVAL_MS / 1000);

      // further uses within the minute write nothing: on another replica (which has not seen the
      // key: the Redis marker stops it) and on this one (it remembers its write)
      await a.db.query(`UPDATE api_keys SET last_used = '2020-01-01 00:00:00+00' WHERE id = $1`, [
        k.id,
      ]);
      await links(k.auth, b).expect(200);
      await links(k.auth).expect(200);
      await sleep(300);
      expect((await lastUsed(k.id))?.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    });

    it('a replica that has not written the key in this minute writes it when no other did', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      await links(k.auth).expect(200);
      await eventually(async () => (await lastUsed(k.id)) !== null, 2000, 20);
      // the minute over for the replicas (the marker gone): B, which never wrote it, writes it
      await a.db.query(`UPDATE api_keys SET last_used = '2020-01-01 00:00:00+00' WHERE id = $1`, [
        k.id,
      ]);
      await a.redis.client.del(a.redis.key('keyused', k.id));
      await links(k.auth, b).expect(200);
      await eventually(
        async () => (await lastUsed(k.id))?.toISOString() !== '2020-01-01T00:00:00.000Z',
        2000,
        20,
      );
    });

    it('the personal key writes no lastused of any named key', async () => {
      const u = await createUser(a);
      const k = await makeKey(u.auth, ['links:read']);
      await links(u.auth).expect(200);
      await sleep(200);
      expect(await lastUsed(k.id)).toBeNull();
    });
  });
});
