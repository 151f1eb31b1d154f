import { PrincipalCache, RouteRules, SCOPES, sha256 } from '@app/common';
import request from 'supertest';

import { addKey, addMember, MemberRole, removeMember, revokeKeys } from './support/access';
import { createTestApp, createUser, expectError, TestApp, TestUser, useSuite } from './support/app';
import { liveAnswer } from './support/live';
import { eventually } from './support/stats';

type Role = 'owner' | MemberRole;
/** A route family: what a route is, in the words of CONTRACT "Teams, workspaces and API keys". */
type Family = string;

/** Roles from least to most. */
const ORDER: Role[] = ['viewer', 'editor', 'admin', 'owner'];

/**
 * CONTRACT, role paragraph, written out (not read from access.ts): the least role of each
 * family. Viewers read everything but keys and the audit log; editors also write links, QR
 * codes, bio pages, overlays and splash pages (`pages`), campaigns, channels, pixels and
 * imports; admins also domains, webhooks, members, keys and the audit log; the owner also the
 * account. `platform` is the admin routes: the owner, and an admin at that.
 */
const LEAST: Record<Family, Role> = {
  'links:read': 'viewer',
  'links:write': 'editor',
  'qr:read': 'viewer',
  'qr:write': 'editor',
  'bio:read': 'viewer',
  'bio:write': 'editor',
  'pages:read': 'viewer',
  'pages:write': 'editor',
  'campaigns:read': 'viewer',
  'campaigns:write': 'editor',
  'channels:read': 'viewer',
  'channels:write': 'editor',
  'pixels:read': 'viewer',
  'pixels:write': 'editor',
  'stats:read': 'viewer',
  'import:read': 'viewer',
  'import:write': 'editor',
  'domains:read': 'viewer',
  'domains:write': 'admin',
  'webhooks:read': 'viewer',
  'webhooks:write': 'admin',
  'team:read': 'viewer',
  'team:write': 'admin',
  'keys:read': 'admin',
  'keys:write': 'admin',
  'audit:read': 'admin',
  owner: 'owner',
  platform: 'owner',
};

/**
 * Every route of the api, by family. A route missing here fails the suite, naming it: a new
 * route forces a decision. Path parameters match by position (`:id` stands for any name).
 */
const ROUTES: Record<Family, string[]> = {
  'links:read': ['GET /api/urls', 'GET /api/url/:id', 'GET /api/url/:id/health'],
  'links:write': [
    'POST /api/url/add',
    'POST /api/url/bulk',
    'PUT /api/url/:id/update',
    'DELETE /api/url/:id/delete',
  ],
  'qr:read': ['GET /api/qr', 'GET /api/qr/:id'],
  'qr:write': ['POST /api/qr/add', 'PUT /api/qr/:id/update', 'DELETE /api/qr/:id/delete'],
  'bio:read': ['GET /api/bio', 'GET /api/bio/:id'],
  'bio:write': ['POST /api/bio/add', 'PUT /api/bio/:id/update', 'DELETE /api/bio/:id/delete'],
  'pages:read': [
    'GET /api/overlay',
    'GET /api/overlay/:id',
    'GET /api/splash',
    'GET /api/splash/:id',
  ],
  'pages:write': [
    'POST /api/overlay/add',
    'PUT /api/overlay/:id/update',
    'DELETE /api/overlay/:id/delete',
    'POST /api/splash/add',
    'PUT /api/splash/:id/update',
    'DELETE /api/splash/:id/delete',
  ],
  'campaigns:read': ['GET /api/campaigns'],
  'campaigns:write': [
    'POST /api/campaign/add',
    'POST /api/campaign/:id/assign/:id',
    'PUT /api/campaign/:id/update',
    'DELETE /api/campaign/:id/delete',
  ],
  'channels:read': ['GET /api/channels', 'GET /api/channel/:id'],
  'channels:write': [
    'POST /api/channel/add',
    'POST /api/channel/:id/assign/:id/:id',
    'PUT /api/channel/:id/update',
    'DELETE /api/channel/:id/delete',
  ],
  'pixels:read': ['GET /api/pixels'],
  'pixels:write': [
    'POST /api/pixel/add',
    'PUT /api/pixel/:id/update',
    'DELETE /api/pixel/:id/delete',
  ],
  'stats:read': [
    'GET /api/stats',
    'GET /api/url/:id/stats',
    'GET /api/url/:id/stats/export',
    'GET /api/urls/export',
    'GET /api/qr/:id/stats',
    'GET /api/url/:id/live',
    'GET /api/stats/live',
    'GET /api/stats/reach',
  ],
  'import:read': ['GET /api/import/:id'],
  'import:write': ['POST /api/import'],
  'domains:read': ['GET /api/domains'],
  'domains:write': [
    'POST /api/domain/add',
    'POST /api/domain/:id/verify',
    'PUT /api/domain/:id/update',
    'DELETE /api/domain/:id/delete',
  ],
  'webhooks:read': ['GET /api/webhooks', 'GET /api/webhook/:id/deliveries'],
  'webhooks:write': [
    'POST /api/webhook/add',
    'PUT /api/webhook/:id/update',
    'DELETE /api/webhook/:id/delete',
    'POST /api/webhook/:id/test',
  ],
  'team:read': ['GET /api/team', 'GET /api/workspaces'],
  'team:write': ['POST /api/team/add', 'PUT /api/team/:id/update', 'DELETE /api/team/:id/delete'],
  'keys:read': ['GET /api/keys'],
  'keys:write': ['POST /api/key/add', 'PUT /api/key/:id/update', 'DELETE /api/key/:id/delete'],
  'audit:read': ['GET /api/audit'],
  owner: ['GET /api/account', 'PUT /api/account/update', 'POST /api/account/key/rotate'],
  platform: [
    'GET /api/users',
    'GET /api/user/:id',
    'POST /api/user/add',
    'DELETE /api/user/:id/delete',
    'POST /api/user/:id/key/rotate',
    'GET /api/user/login/:id',
    'GET /api/plans',
    'PUT /api/plan/:id/user/:id',
    'GET /api/admin/blocklist',
    'POST /api/admin/blocklist/add',
    'DELETE /api/admin/blocklist/:id/delete',
    'PUT /api/admin/url/:id/disable',
    'PUT /api/admin/url/:id/enable',
    'POST /api/admin/url/:id/allow',
    'GET /api/admin/reports',
    'PUT /api/admin/report/:id/resolve',
    'GET /api/admin/feeds',
  ],
};

const shape = (route: string) => route.replace(/:\w+/g, ':id');

/** The family of every route in the table, by its shape. */
const FAMILY_OF = new Map(
  Object.entries(ROUTES).flatMap(([family, routes]) => routes.map((r) => [r, family] as const)),
);

/** The guard's refusals (any other answer is the route's own). */
const GUARD_REFUSAL =
  /^(This needs the role |This key lacks the scope |Admin privileges are required|Your plan does not include API access)/;

/** The call got past the guard: not a 401, not one of its 403s, not a workspace failure. */
const passed = (res: request.Response): boolean => {
  const message = String(res.body?.message ?? '');
  return (
    res.status !== 401 &&
    !(res.status === 403 && GUARD_REFUSAL.test(message)) &&
    !message.includes('X-Workspace')
  );
};

/** An id no row has: an allowed call reaches the route, which answers 404 (or 400 for its body). */
const NO_ID = '2147483646';
const fill = (route: string) =>
  route.replace(/:(\w+)/g, (_, name: string) => (name === 'type' ? 'links' : NO_ID));

interface Call {
  route: string;
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  family: Family;
}

/** Live streams never end: their calls are answered at the stream's first line, then closed. */
const LIVE = /\/live$/;

/** Sends a route's call with `headers`; writes get an empty JSON body. */
async function send(
  t: TestApp,
  call: Call,
  headers: Record<string, string>,
): Promise<request.Response> {
  if (LIVE.test(call.path))
    return (await liveAnswer(t.server, call.path, headers)) as unknown as request.Response;
  const req = t.http()[call.method](call.path).set(headers);
  return call.method === 'get' ? req : req.send({});
}

/**
 * Role × route and scope × route, exhaustively, against every route of the running api
 * (RouteRules.routes(), so a new route is included the day it is added, and fails until this
 * table gives it a family). The expected answers are CONTRACT's, written out above, not computed
 * by access.ts: allowed → the route's own answer (an unknown id's 404, a 400 for the empty
 * body; never the guard's 403); refused → 403 naming the least role, or the missing scope.
 */
describe('access: roles and scopes on every route', () => {
  const { t, owner, admin, editor, viewer, stranger } = useSuite(
    {
      owner: { admin: true },
      admin: {},
      editor: {},
      viewer: {},
      stranger: {},
    },
    { RATE_LIMIT: '100000', LIVE_STREAMS_PER_KEY: '100' },
  );
  const members: Record<MemberRole, TestUser> = { admin, editor, viewer };
  let calls: Call[];

  beforeAll(async () => {
    for (const role of ['admin', 'editor', 'viewer'] as const)
      await addMember(t, owner.id, members[role].id, role);
    const seen = t.app.get(RouteRules).routes();
    calls = seen
      .filter((r) => !r.rule.public)
      .map(({ route, method }) => ({
        route,
        method: method.toLowerCase() as Call['method'],
        path: fill(route.slice(method.length + 1)),
        family: FAMILY_OF.get(shape(route)) as Family,
      }));
  });

  /** A key rotation that went through gave the owner a new personal key: keep using it. */
  const follow = (res: request.Response) => {
    if (res.status === 200 && typeof res.body?.apikey === 'string' && res.body.id === owner.id)
      owner.auth = { Authorization: `Bearer ${res.body.apikey as string}` };
  };

  it('every route of the api has a family in the table (a new route needs a row)', () => {
    const missing = calls.filter((c) => !c.family).map((c) => c.route);
    expect(missing.length ? `routes without a row: ${missing.join(', ')}` : 'none').toBe('none');
    // and every row names a route of the api (no stale rows), but for those being built
    const routes = new Set(calls.map((c) => shape(c.route)));
    const stale = [...FAMILY_OF.keys()].filter((r) => !routes.has(r));
    expect(stale).toEqual([]);
    expect(calls.length).toBeGreaterThanOrEqual(70);
  });

  it('public routes are not in the table: they need no key', () => {
    const publics = t.app
      .get(RouteRules)
      .routes()
      .filter((r) => r.rule.public)
      .map((r) => r.route);
    expect(publics.sort()).toEqual([
      'DELETE /auth/session',
      'GET /auth/login/:token',
      'GET /auth/session',
      'GET /health',
      'GET /health/ready',
      'POST /api/report',
      'POST /auth/session',
    ]);
  });

  describe.each(['owner', 'admin', 'editor', 'viewer'] as Role[])('as %s (X-Workspace)', (role) => {
    it('every route: allowed, or 403 naming the least role', async () => {
      const user = role === 'owner' ? owner : members[role];
      const wrong: string[] = [];
      for (const call of calls) {
        if (!call.family) continue;
        const least = LEAST[call.family];
        const allowed = ORDER.indexOf(role) >= ORDER.indexOf(least);
        const res = await send(t, call, {
          ...(role === 'owner' ? owner.auth : user.auth),
          'X-Workspace': String(owner.id),
        });
        follow(res);
        const message = String(res.body?.message ?? '');
        if (allowed) {
          if (!passed(res))
            wrong.push(`${call.route}: allowed for ${role}, got ${res.status} ${message}`);
        } else {
          const expected = `This needs the role ${least} in this workspace; yours is ${role}`;
          if (res.status !== 403 || message !== expected)
            wrong.push(`${call.route}: expected 403 "${expected}", got ${res.status} ${message}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  });

  it('a non-admin owner gets 403 "Admin privileges are required" on every platform route', async () => {
    const plain = await createUser(t);
    const wrong: string[] = [];
    for (const call of calls.filter((c) => c.family === 'platform')) {
      const res = await send(t, call, { ...plain.auth, 'X-Workspace': String(plain.id) });
      if (res.status !== 403 || res.body.message !== 'Admin privileges are required')
        wrong.push(`${call.route}: ${res.status} ${res.body.message}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a user who is not a member gets 404 on every route with X-Workspace', async () => {
    const wrong: string[] = [];
    for (const call of calls) {
      const res = await send(t, call, { ...stranger.auth, 'X-Workspace': String(owner.id) });
      if (res.status !== 404 || res.body.message !== 'Workspace not found (X-Workspace)')
        wrong.push(`${call.route}: ${res.status} ${res.body.message}`);
    }
    expect(wrong).toEqual([]);
  });

  describe('named keys: every scope against every route', () => {
    /**
     * CONTRACT, scope paragraph: `<area>:write` includes `<area>:read`; `*` is everything; the
     * account and the admin routes need `*`.
     */
    const scopeAllows = (scope: string, family: Family): boolean => {
      if (scope === '*') return true;
      if (family === 'owner' || family === 'platform') return false;
      const [area, access] = family.split(':');
      return scope === family || (access === 'read' && scope === `${area}:write`);
    };
    const refusal = (family: Family) =>
      family === 'owner' || family === 'platform'
        ? 'This key lacks the scope *: only a key with every scope may do this'
        : `This key lacks the scope ${family}`;

    it('the scopes tried are every scope a key may hold', () => {
      const areas = [
        ...new Set(Object.keys(LEAST).flatMap((f) => (f.includes(':') ? [f.split(':')[0]] : []))),
      ];
      expect([...SCOPES].sort()).toEqual(
        ['*', ...areas.flatMap((a) => [`${a}:read`, `${a}:write`])].sort(),
      );
    });

    it.each([...SCOPES])('a key with the scope %s', async (scope) => {
      // made by the owner: its role never stands in the way, its scope alone decides
      const key = await addKey(t, { workspace: owner.id, user: owner.id, scopes: [scope] });
      const wrong: string[] = [];
      for (const call of calls) {
        if (!call.family) continue;
        const res = await send(t, call, key.auth);
        follow(res);
        const message = String(res.body?.message ?? '');
        if (scopeAllows(scope, call.family)) {
          if (!passed(res))
            wrong.push(`${call.route}: allowed for ${scope}, got ${res.status} ${message}`);
        } else if (res.status !== 403 || message !== refusal(call.family)) {
          wrong.push(
            `${call.route}: expected 403 "${refusal(call.family)}", got ${res.status} ${message}`,
          );
        }
      }
      expect(wrong).toEqual([]);
    });

    it('a key never exceeds its creator role: a viewer key with links:write is refused by role', async () => {
      const key = await addKey(t, {
        workspace: owner.id,
        user: viewer.id,
        scopes: ['links:write'],
      });
      expectError(
        await t.http().post('/api/url/add').set(key.auth).send({ url: 'https://example.com/' }),
        403,
        /^This needs the role editor in this workspace; yours is viewer$/,
      );
      await t.http().get('/api/urls').set(key.auth).expect(200);
    });

    it('a key acts in its own workspace: the header may name it, another one is 404', async () => {
      const key = await addKey(t, { workspace: owner.id, user: editor.id, scopes: ['links:read'] });
      await t
        .http()
        .get('/api/urls')
        .set(key.auth)
        .set('X-Workspace', String(owner.id))
        .expect(200);
      expectError(
        await t.http().get('/api/urls').set(key.auth).set('X-Workspace', String(editor.id)),
        404,
        /^Workspace not found \(X-Workspace\)$/,
      );
    });

    it("a member's key stops when the member is removed (401), an expired key is 401", async () => {
      const gone = await createUser(t);
      await addMember(t, owner.id, gone.id, 'editor');
      const key = await addKey(t, { workspace: owner.id, user: gone.id, scopes: ['*'] });
      await t.http().get('/api/urls').set(key.auth).expect(200);
      await removeMember(t, owner.id, gone.id);
      expectError(await t.http().get('/api/urls').set(key.auth), 401, /^Invalid API key$/);

      const old = await addKey(t, {
        workspace: owner.id,
        user: owner.id,
        scopes: ['*'],
        expires: new Date(Date.now() - 1000),
      });
      expectError(await t.http().get('/api/urls').set(old.auth), 401, /^API key has expired$/);
    });

    it('a revoked key is 401 on the next request', async () => {
      const key = await addKey(t, { workspace: owner.id, user: owner.id, scopes: ['links:read'] });
      await t.http().get('/api/urls').set(key.auth).expect(200);
      await revokeKeys(t, [key.id]);
      expectError(await t.http().get('/api/urls').set(key.auth), 401, /^Invalid API key$/);
    });
  });
});

describe('access: X-Workspace', () => {
  const { t, owner, other } = useSuite({ owner: {}, other: {} });

  const urls = (u: TestUser, workspace?: string | string[]) => {
    const req = t.http().get('/api/urls').set(u.auth);
    // a list: the header sent once per item (supertest types only Cookie as a list)
    return workspace === undefined ? req : req.set('X-Workspace', workspace as string);
  };

  it('a workspace the caller is not a member of, or that does not exist: 404', async () => {
    for (const id of [String(other.id), '2147483647', '1'])
      expectError(await urls(owner, id), 404, /^Workspace not found \(X-Workspace\)$/);
  });

  it('not a positive integer: 400 naming X-Workspace', async () => {
    const bad = ['abc', '0', '-1', '-5', '1.5', '1e3', '0x10', '2147483648', '99999999999', ''];
    for (const value of bad) {
      const res = await urls(owner, value);
      expect([value, res.status]).toEqual([value, 400]);
      expectError(res, 400, /^X-Workspace must be the id of a workspace \(a positive integer\)$/);
    }
    // the header twice (a list, even of the caller's own id) is no id either
    const twice = await urls(owner, [String(owner.id), String(owner.id)]);
    expectError(twice, 400, /^X-Workspace /);
  });

  it("the caller's own id acts as its owner, like no header", async () => {
    const mine = await t
      .http()
      .get('/api/account')
      .set(owner.auth)
      .set('X-Workspace', String(owner.id))
      .expect(200);
    expect(mine.body.data.id).toBe(owner.id);
    await urls(owner, ` ${owner.id} `).expect(200);
  });

  it('inside a workspace the owner is the workspace owner: lists show the owner rows', async () => {
    const member = await createUser(t);
    await addMember(t, owner.id, member.id, 'viewer');
    const made = await t
      .http()
      .post('/api/url/add')
      .set(owner.auth)
      .send({ url: 'https://example.com/ws' })
      .expect(200);
    const list = await urls(member, String(owner.id)).expect(200);
    expect(list.body.data.urls.map((u: { id: number }) => u.id)).toContain(made.body.id);
    const own = await urls(member).expect(200);
    expect(own.body.data.urls.map((u: { id: number }) => u.id)).not.toContain(made.body.id);
  });

  it('a member removed is refused on the next request', async () => {
    const member = await createUser(t);
    await addMember(t, owner.id, member.id, 'editor');
    await urls(member, String(owner.id)).expect(200);
    await removeMember(t, owner.id, member.id);
    expectError(await urls(member, String(owner.id)), 404, /^Workspace not found \(X-Workspace\)$/);
  });

  it('a role lowered is in force on the next request', async () => {
    const member = await createUser(t);
    await addMember(t, owner.id, member.id, 'editor');
    const add = () =>
      t
        .http()
        .post('/api/url/add')
        .set(member.auth)
        .set('X-Workspace', String(owner.id))
        .send({ url: 'https://example.com/role' });
    await add().expect(200);
    await addMember(t, owner.id, member.id, 'viewer');
    expectError(
      await add(),
      403,
      /^This needs the role editor in this workspace; yours is viewer$/,
    );
    await urls(member, String(owner.id)).expect(200);
  });
});

describe('access: removal, role change and key revocation across two api replicas', () => {
  let a: TestApp;
  /** A second replica whose entries would live five minutes without invalidation. */
  let b: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    a = await createTestApp();
    b = await createTestApp({ AUTH_CACHE_SECONDS: '300' });
    owner = await createUser(a);
    // both replicas subscribed to the invalidations: a user forgotten on a is dropped on b
    await eventually(async () => {
      const probe = await createUser(a);
      await b.http().get('/api/account').set(probe.auth).expect(200);
      await a.app.get(PrincipalCache).forgetUser(probe.id);
      await new Promise((r) => setTimeout(r, 50));
      return b.app.get(PrincipalCache).get(sha256(probe.apiKey)) === undefined;
    }, 5000);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const onB = (u: { auth: { Authorization: string } }, workspace?: number) => {
    const req = b.http().get('/api/urls').set(u.auth);
    return workspace ? req.set('X-Workspace', String(workspace)) : req;
  };

  it('a member removed on one replica is refused on the other within 1 s', async () => {
    const member = await createUser(a);
    await addMember(a, owner.id, member.id, 'viewer');
    await onB(member, owner.id).expect(200);
    await onB(member, owner.id).expect(200);
    const started = Date.now();
    await removeMember(a, owner.id, member.id);
    await eventually(async () => (await onB(member, owner.id)).status === 404, 1000, 20);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a role lowered on one replica is in force on the other within 1 s', async () => {
    const member = await createUser(a);
    await addMember(a, owner.id, member.id, 'admin');
    const webhooks = () =>
      b
        .http()
        .post('/api/webhook/add')
        .set(member.auth)
        .set('X-Workspace', String(owner.id))
        .send({});
    expect((await webhooks()).status).not.toBe(403);
    const started = Date.now();
    await addMember(a, owner.id, member.id, 'editor');
    await eventually(async () => (await webhooks()).status === 403, 1000, 20);
    expect(Date.now() - started).toBeLessThan(1000);
    expectError(
      await webhooks(),
      403,
      /^This needs the role admin in this workspace; yours is editor$/,
    );
  });

  it('a named key revoked on one replica is refused on the other within 1 s', async () => {
    const key = await addKey(a, { workspace: owner.id, user: owner.id, scopes: ['links:read'] });
    await onB(key).expect(200);
    await onB(key).expect(200);
    const started = Date.now();
    await revokeKeys(a, [key.id]);
    await eventually(async () => (await onB(key)).status === 401, 1000, 20);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
