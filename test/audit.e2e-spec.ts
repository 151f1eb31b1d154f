import { AuditLog, Principal, sha256 } from '@app/common';

import {
  createPlan,
  createTestWorker,
  createUser,
  DATE_TIME,
  expectError,
  TestUser,
  useTestApp,
} from './support/app';
import { fewestReads } from './support/reads';
import { apiRoutes, expectPagination, uniq } from './support/resources';
import { replicasCaughtUp } from './support/services';

const ROUTES = apiRoutes({ 'GET /api/audit': { list: 'entries' } });

/** An entry as the list answers it, by the personal key of `u` unless `key` says otherwise. */
const entry = (
  u: TestUser,
  action: string,
  type: string,
  id: number,
  changes: string[] = [],
  key: number | null = null,
) => ({
  id: expect.any(Number),
  date: expect.stringMatching(DATE_TIME),
  actor: { id: u.id, email: u.email },
  key,
  action,
  resource: { type, id },
  changes,
});

describe('audit log', () => {
  const t = useTestApp({ WEBHOOK_ALLOW_HOSTS: 'hooks.example.com' });

  ROUTES.itChecksEveryRoute(t);

  const http = () => t.http();
  const audit = async (u: TestUser, query = '') =>
    (await http().get(`/api/audit${query}`).set(u.auth).expect(200)).body.data;
  const entries = async (u: TestUser, query = '') => (await audit(u, query)).entries;
  const count = async (u: TestUser) =>
    (
      await t.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = $1`, [u.id])
    )[0].n as number;
  const post = (u: TestUser, path: string, body: object) =>
    http().post(path).set(u.auth).send(body);
  const put = (u: TestUser, path: string, body: object) => http().put(path).set(u.auth).send(body);
  const del = (u: TestUser, path: string) => http().delete(path).set(u.auth);

  const LINK_PASSWORD = 'link-pass-Zq81';
  const ACCOUNT_PASSWORD = 'account-pass-Xw72';
  const WEBHOOK_SECRET = 'whsec_audit_secret_Vy63kd';

  describe('a scripted sequence of changes', () => {
    let u: TestUser;
    let other: TestUser;
    const ids: Record<string, number> = {};

    beforeAll(async () => {
      u = await createUser(t, { plan: 'Pro' });
      other = await createUser(t, { plan: 'Pro' });
      const ok = async (res: Promise<{ status: number; body: { id?: number } }>) => {
        const r = await res;
        expect(r.status).toBe(200);
        return r.body.id as number;
      };
      ids.link = await ok(post(u, '/api/url/add', { url: 'https://example.com/a', title: 'A' }));
      await ok(put(u, `/api/url/${ids.link}/update`, { title: 'B', description: 'd' }));
      await ok(put(u, `/api/url/${ids.link}/update`, { password: LINK_PASSWORD }));
      await ok(del(u, `/api/url/${ids.link}/delete`));
      ids.qr = await ok(
        post(u, '/api/qr/add', { type: 'link', data: 'https://example.com/menu', name: 'Menu' }),
      );
      ids.pixel = await ok(post(u, '/api/pixel/add', { type: 'vendor09', name: 'P', tag: 'G-1' }));
      await ok(put(u, `/api/pixel/${ids.pixel}/update`, { tag: 'G-2' }));
      await ok(del(u, `/api/pixel/${ids.pixel}/delete`));
      ids.domain = await ok(
        post(u, '/api/domain/add', { domain: `https://${uniq('audit')}.example.com` }),
      );
      ids.webhook = await ok(
        post(u, '/api/webhook/add', {
          url: 'https://hooks.example.com/audit',
          events: ['link.created'],
          secret: WEBHOOK_SECRET,
        }),
      );
      await ok(put(u, '/api/account/update', { password: ACCOUNT_PASSWORD }));
      const bulk = await post(u, '/api/url/bulk', {
        urls: [
          { url: 'https://example.com/1' },
          { url: 'not a url' },
          { url: 'https://example.com/2', title: 'two' },
          { url: 'https://example.com/3' },
        ],
      }).expect(200);
      const created = (bulk.body.data as Array<{ id?: number }>).filter((d) => d.id);
      expect(created).toHaveLength(3);
      [ids.bulk1, ids.bulk2, ids.bulk3] = created.map((d) => d.id as number);
    });

    it('GET /api/audit answers exactly one entry per change, newest first', async () => {
      const body = await audit(u);
      expect(body).toMatchObject({ result: 14, perpage: 15, currentpage: 1, nextpage: 0 });
      expect(body.entries).toEqual([
        entry(u, 'link.create', 'link', ids.bulk3, ['url']),
        entry(u, 'link.create', 'link', ids.bulk2, ['title', 'url']),
        entry(u, 'link.create', 'link', ids.bulk1, ['url']),
        entry(u, 'account.update', 'account', u.id, ['password']),
        entry(u, 'webhook.create', 'webhook', ids.webhook, ['events', 'secret', 'url']),
        entry(u, 'domain.create', 'domain', ids.domain, ['domain']),
        entry(u, 'pixel.delete', 'pixel', ids.pixel),
        entry(u, 'pixel.update', 'pixel', ids.pixel, ['tag']),
        entry(u, 'pixel.create', 'pixel', ids.pixel, ['name', 'tag', 'type']),
        entry(u, 'qr.create', 'qr', ids.qr, ['data', 'name', 'type']),
        entry(u, 'link.delete', 'link', ids.link),
        entry(u, 'link.update', 'link', ids.link, ['password']),
        entry(u, 'link.update', 'link', ids.link, ['description', 'title']),
        entry(u, 'link.create', 'link', ids.link, ['title', 'url']),
      ]);
      const list = body.entries as Array<{ id: number }>;
      expect(list.map((e) => e.id)).toEqual([...list.map((e) => e.id)].sort((a, b) => b - a));
    });

    it('only the workspace’s own entries', async () => {
      expect(await entries(other)).toEqual([]);
    });

    it('filters by action (exact or <type>.*) and by actor', async () => {
      const creates = await entries(u, '?action=link.create');
      expect(creates.map((e: { resource: { id: number } }) => e.resource.id)).toEqual([
        ids.bulk3,
        ids.bulk2,
        ids.bulk1,
        ids.link,
      ]);
      const links = await entries(u, '?action=link.*');
      expect(links).toHaveLength(7);
      expect(new Set(links.map((e: { action: string }) => e.action))).toEqual(
        new Set(['link.create', 'link.update', 'link.delete']),
      );
      expect(await entries(u, '?action=pixel.delete')).toEqual([
        entry(u, 'pixel.delete', 'pixel', ids.pixel),
      ]);
      expect(await entries(u, '?action=campaign.*')).toEqual([]);
      expect(await entries(u, `?actor=${u.id}`)).toHaveLength(14);
      expect(await entries(u, `?actor=${other.id}`)).toEqual([]);
      expect(await entries(u, `?actor=${u.id}&action=pixel.*&limit=2`)).toHaveLength(2);
    });

    it('no secret or password value is ever stored in the log', async () => {
      const [{ text }] = await t.db.query(
        `SELECT string_agg(a::text, ' ') AS text FROM audit_log a WHERE workspace_id = $1`,
        [u.id],
      );
      expect(text).toContain('password');
      expect(text).toContain('secret');
      for (const value of [LINK_PASSWORD, ACCOUNT_PASSWORD, WEBHOOK_SECRET])
        expect(text).not.toContain(value);
    });

    it('a refused change writes no entry', async () => {
      const before = await count(u);
      expectError(await put(u, '/api/url/2147483000/update', { title: 'x' }), 404);
      expectError(await put(u, `/api/url/${ids.bulk1}/update`, { url: 'nope' }), 400, /^url: /);
      expectError(await post(u, '/api/url/add', { url: 'nope' }), 400, /^url: /);
      expectError(await del(u, '/api/pixel/2147483000/delete'), 404);
      expectError(await post(u, '/api/pixel/add', { type: 'nope', name: 'x', tag: 'y' }), 400);
      expectError(await put(u, `/api/webhook/${ids.webhook}/update`, { url: 'ftp://x' }), 400);
      expectError(await del(other, `/api/domain/${ids.domain}/delete`), 404);
      expectError(await put(u, '/api/account/update', {}), 400);
      // a read, and a webhook test, change nothing
      await http().get(`/api/url/${ids.bulk1}`).set(u.auth).expect(200);
      await post(u, `/api/webhook/${ids.webhook}/test`, {}).expect(200);
      expect(await count(u)).toBe(before);
      expect(await count(other)).toBe(0);
    });

    it('a named key is named in its entries', async () => {
      const key = `audit-key-${uniq()}`;
      const [{ id: keyId }] = await t.db.query(
        `INSERT INTO api_keys (workspace_id, user_id, name, prefix, key_hash, scopes)
         VALUES ($1, $1, 'ci', $2, $3, '{*}') RETURNING id`,
        [u.id, key.slice(0, 12), sha256(key)],
      );
      const res = await http()
        .post('/api/url/add')
        .set({ Authorization: `Bearer ${key}` })
        .send({ url: 'https://example.com/by-key' })
        .expect(200);
      await http()
        .put(`/api/url/${res.body.id}/update`)
        .set({ Authorization: `Bearer ${key}` })
        .send({ title: 'k' })
        .expect(200);
      expect(await entries(u, '?limit=2')).toEqual([
        entry(u, 'link.update', 'link', res.body.id, ['title'], keyId),
        entry(u, 'link.create', 'link', res.body.id, ['url'], keyId),
      ]);
    });
  });

  describe('members', () => {
    it('a member’s change is the workspace’s entry with the member as actor; admins read the log, editors may not', async () => {
      const owner = await createUser(t);
      const editor = await createUser(t);
      const admin = await createUser(t);
      for (const [m, role] of [
        [editor, 'editor'],
        [admin, 'admin'],
      ] as const)
        await t.db.query(
          `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)`,
          [owner.id, m.id, role],
        );
      const inOwner = (m: TestUser) => ({ ...m.auth, 'X-Workspace': String(owner.id) });
      const res = await http()
        .post('/api/url/add')
        .set(inOwner(editor))
        .send({ url: 'https://example.com/member' })
        .expect(200);
      await post(owner, '/api/url/add', { url: 'https://example.com/owner' }).expect(200);
      const list = await http().get('/api/audit').set(inOwner(admin)).expect(200);
      expect(list.body.data.entries[1]).toEqual(
        entry(editor, 'link.create', 'link', res.body.id, ['url']),
      );
      expect(
        (await http().get(`/api/audit?actor=${editor.id}`).set(inOwner(admin)).expect(200)).body
          .data.entries,
      ).toEqual([entry(editor, 'link.create', 'link', res.body.id, ['url'])]);
      expect(await entries(editor)).toEqual([]);
      expectError(await http().get('/api/audit').set(inOwner(editor)), 403, /admin/);
    });
  });

  describe('more changes of each feature', () => {
    it('records campaigns, channels, bio pages, overlays, splash pages, QR updates and deletions, domains and webhooks', async () => {
      const u = await createUser(t, { plan: 'Pro' });
      const ok = async (res: Promise<{ status: number; body: { id?: number } }>) => {
        const r = await res;
        expect(r.status === 200 ? 200 : r.body).toBe(200);
        return r.body.id as number;
      };
      const link = await ok(post(u, '/api/url/add', { url: 'https://example.com/x' }));
      const campaign = await ok(post(u, '/api/campaign/add', { name: 'C' }));
      await ok(put(u, `/api/campaign/${campaign}/update`, { name: 'D' }));
      await ok(post(u, `/api/campaign/${campaign}/assign/${link}`, {}));
      await ok(del(u, `/api/campaign/${campaign}/delete`));
      const channel = (await post(u, '/api/channel/add', { name: 'Ch' }).expect(200)).body.data
        ?.id as number | undefined;
      const channelId =
        channel ?? (await t.db.query(`SELECT id FROM channels WHERE user_id = $1`, [u.id]))[0].id;
      await ok(post(u, `/api/channel/${channelId}/assign/links/${link}`, {}));
      await ok(post(u, `/api/channel/${channelId}/assign/links/${link}`, {})); // already there
      await ok(put(u, `/api/channel/${channelId}/update`, { starred: true }));
      await ok(del(u, `/api/channel/${channelId}/delete`));
      const bio = await ok(post(u, '/api/bio/add', { name: 'Me' }));
      await ok(put(u, `/api/bio/${bio}/update`, { theme: 'dark' }));
      await ok(del(u, `/api/bio/${bio}/delete`));
      const splash = await ok(post(u, '/api/splash/add', { name: 'S', title: 'T' }));
      await ok(put(u, `/api/splash/${splash}/update`, { title: 'U' }));
      await ok(del(u, `/api/splash/${splash}/delete`));
      const overlay = await ok(
        post(u, '/api/overlay/add', { type: 'message', name: 'O', message: 'm' }),
      );
      await ok(put(u, `/api/overlay/${overlay}/update`, { message: 'n' }));
      await ok(del(u, `/api/overlay/${overlay}/delete`));
      const qr = await ok(post(u, '/api/qr/add', { type: 'text', data: 'hello' }));
      await ok(put(u, `/api/qr/${qr}/update`, { name: 'Q', data: 'hi' }));
      await ok(del(u, `/api/qr/${qr}/delete`));
      const domain = await ok(
        post(u, '/api/domain/add', { domain: `https://${uniq('audit')}.example.com` }),
      );
      await ok(put(u, `/api/domain/${domain}/update`, { redirect404: 'https://example.com/404' }));
      await ok(put(u, `/api/domain/${domain}/update`, {})); // changes nothing
      await ok(post(u, `/api/domain/${domain}/verify`, {})); // verified already (DOMAIN_VERIFY=off)
      await ok(del(u, `/api/domain/${domain}/delete`));
      const hook = await ok(
        post(u, '/api/webhook/add', {
          url: 'https://hooks.example.com/b',
          events: ['link.created'],
        }),
      );
      await ok(put(u, `/api/webhook/${hook}/update`, { secret: WEBHOOK_SECRET, active: false }));
      await ok(del(u, `/api/webhook/${hook}/delete`));
      await ok(post(u, '/api/account/key/rotate', {}));

      const [{ api_key_hash }] = await t.db.query(`SELECT api_key_hash FROM users WHERE id = $1`, [
        u.id,
      ]);
      expect(api_key_hash).not.toBe(sha256(u.apiKey));
      const rows: Array<{ action: string; type: string; id: string; changes: string[] }> =
        await t.db.query(
          `SELECT action, resource_type AS type, resource_id AS id, changes FROM audit_log a
            WHERE workspace_id = $1 ORDER BY a.id`,
          [u.id],
        );
      expect(rows.map((r) => [r.action, r.type, Number(r.id), r.changes])).toEqual([
        ['link.create', 'link', link, ['url']],
        ['campaign.create', 'campaign', campaign, ['name']],
        ['campaign.update', 'campaign', campaign, ['name']],
        ['campaign.assign', 'campaign', campaign, ['links']],
        ['campaign.delete', 'campaign', campaign, []],
        ['channel.create', 'channel', channelId, ['name']],
        ['channel.assign', 'channel', channelId, ['items']],
        ['channel.update', 'channel', channelId, ['starred']],
        ['channel.delete', 'channel', channelId, []],
        ['bio.create', 'bio', bio, ['name']],
        ['bio.update', 'bio', bio, ['theme']],
        ['bio.delete', 'bio', bio, []],
        ['splash.create', 'splash', splash, ['name', 'title']],
        ['splash.update', 'splash', splash, ['title']],
        ['splash.delete', 'splash', splash, []],
        ['overlay.create', 'overlay', overlay, ['message', 'name', 'type']],
        ['overlay.update', 'overlay', overlay, ['message']],
        ['overlay.delete', 'overlay', overlay, []],
        ['qr.create', 'qr', qr, ['data', 'type']],
        ['qr.update', 'qr', qr, ['data', 'name']],
        ['qr.delete', 'qr', qr, []],
        ['domain.create', 'domain', domain, ['domain']],
        ['domain.update', 'domain', domain, ['redirect404']],
        ['domain.delete', 'domain', domain, []],
        ['webhook.create', 'webhook', hook, ['events', 'url']],
        ['webhook.update', 'webhook', hook, ['active', 'secret']],
        ['webhook.delete', 'webhook', hook, []],
        ['account.rotate_key', 'account', u.id, ['apikey']],
      ]);
      const [{ text }] = await t.db.query(
        `SELECT string_agg(a::text, ' ') AS text FROM audit_log a WHERE workspace_id = $1`,
        [u.id],
      );
      expect(text).not.toContain(WEBHOOK_SECRET);
    });

    it('an import is one import.create entry, standing for the links its job writes', async () => {
      const u = await createUser(t);
      const res = await post(u, '/api/import', {
        links: [{ url: 'https://example.com/i1' }, { url: 'https://example.com/i2' }],
      }).expect(200);
      expect(await entries(u)).toEqual([
        entry(u, 'import.create', 'import', res.body.id, ['links']),
      ]);
    });

    it('admin platform routes are recorded in the admin’s own workspace', async () => {
      const admin = await createUser(t, { admin: true });
      const owner = await createUser(t);
      const link = (await post(owner, '/api/url/add', { url: 'https://example.com/t' }).expect(200))
        .body.id as number;
      await put(admin, `/api/admin/url/${link}/disable`, {}).expect(200);
      await put(admin, `/api/admin/url/${link}/enable`, {}).expect(200);
      const block = await post(admin, '/api/admin/blocklist/add', {
        entry: `${uniq('bad')}.example`,
      }).expect(200);
      await del(admin, `/api/admin/blocklist/${block.body.id}/delete`).expect(200);
      const made = await post(admin, '/api/user/add', {
        email: `${uniq('new')}@example.com`,
        username: uniq('new'),
        password: ACCOUNT_PASSWORD,
      }).expect(200);
      const userId = made.body.data.id as number;
      await post(admin, `/api/user/${userId}/key/rotate`, {}).expect(200);
      const [{ id: plan }] = await t.db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
      await put(admin, `/api/plan/${plan}/user/${userId}`, { type: 'monthly' }).expect(200);
      await del(admin, `/api/user/${userId}/delete`).expect(200);
      expectError(await put(admin, '/api/admin/url/2147483000/disable', {}), 404);

      expect(await entries(admin)).toEqual([
        entry(admin, 'user.delete', 'user', userId),
        entry(admin, 'user.subscribe', 'user', userId, ['planid', 'type']),
        entry(admin, 'user.rotate_key', 'user', userId, ['apikey']),
        entry(admin, 'user.create', 'user', userId, ['email', 'password', 'username']),
        entry(admin, 'blocklist.delete', 'blocklist', block.body.id),
        entry(admin, 'blocklist.create', 'blocklist', block.body.id, ['entry']),
        entry(admin, 'link.enable', 'link', link, ['disabled']),
        entry(admin, 'link.disable', 'link', link, ['disabled']),
      ]);
      // the owner's own log has its creation only
      expect((await entries(owner)).map((e: { action: string }) => e.action)).toEqual([
        'link.create',
      ]);
      const [{ text }] = await t.db.query(
        `SELECT string_agg(a::text, ' ') AS text FROM audit_log a WHERE workspace_id = $1`,
        [admin.id],
      );
      expect(text).not.toContain(ACCOUNT_PASSWORD);
    });
  });

  describe('dates, pagination, bad filters', () => {
    let u: TestUser;
    const entryIds: number[] = [];

    beforeAll(async () => {
      u = await createUser(t);
      for (const n of [1, 2, 3])
        await post(u, '/api/url/add', { url: `https://example.com/d${n}` }).expect(200);
      const rows = await t.db.query(
        `SELECT id FROM audit_log WHERE workspace_id = $1 ORDER BY id`,
        [u.id],
      );
      entryIds.push(...rows.map((r: { id: string }) => Number(r.id)));
      const dates = ['2026-01-01 10:00:00', '2026-01-02 23:59:59', '2026-01-03 00:00:00'];
      for (const [i, date] of dates.entries())
        await t.db.query(`UPDATE audit_log SET created_at = $2::timestamptz WHERE id = $1`, [
          entryIds[i],
          `${date}+00`,
        ]);
    });

    it('from and to: a day (whole) or a date-time (to the second), both included', async () => {
      const idsOf = async (query: string) =>
        (await entries(u, query)).map((e: { id: number }) => e.id);
      const [a, b, c] = entryIds;
      expect(await idsOf('?from=2026-01-02&to=2026-01-02')).toEqual([b]);
      expect(await idsOf('?from=2026-01-02')).toEqual([c, b]);
      expect(await idsOf('?to=2026-01-02')).toEqual([b, a]);
      expect(await idsOf(`?from=${encodeURIComponent('2026-01-02 23:59:59')}`)).toEqual([c, b]);
      expect(await idsOf(`?to=${encodeURIComponent('2026-01-02 23:59:58')}`)).toEqual([a]);
      expect(
        await idsOf(
          `?from=${encodeURIComponent('2026-01-01 10:00:00')}&to=${encodeURIComponent('2026-01-01 10:00:00')}`,
        ),
      ).toEqual([a]);
      expect(await idsOf('?from=2026-01-04')).toEqual([]);
      const [first] = await entries(u, '?to=2026-01-01');
      expect(first.date).toBe('2026-01-01 10:00:00');
    });

    it('paginates like every list', () =>
      expectPagination(t, u, '/api/audit', 'entries', entryIds));

    it('bad filters are a 400 naming the field', async () => {
      const bad = async (query: string, field: string) =>
        expectError(
          await http().get(`/api/audit${query}`).set(u.auth),
          400,
          new RegExp(`^${field}: `),
        );
      await bad('?from=yesterday', 'from');
      await bad('?from=2026-13-01', 'from');
      await bad('?from=2026-1-1', 'from');
      await bad('?to=2026-02-30', 'to');
      await bad(`?to=${encodeURIComponent('2026-01-01 24:00:00')}`, 'to');
      await bad('?from=2026-01-03&to=2026-01-02', 'to');
      await bad('?action=LINK.create', 'action');
      await bad('?action=link', 'action');
      await bad('?action=link.%25', 'action');
      await bad('?actor=abc', 'actor');
      await bad('?actor=0', 'actor');
      await bad('?actor=1.5', 'actor');
    });
  });

  describe('retention', () => {
    it('the worker’s pass prunes entries older than the owner’s plan keeps, in batches; 0 and admins keep all', async () => {
      const keeps7 = await createUser(t, {
        planId: await createPlan(t, { retention: 7 }),
        planType: 'lifetime',
      });
      const pro = await createUser(t, { plan: 'Pro' }); // retention 0: forever
      const admin = await createUser(t, { admin: true }); // on Free, but an admin
      const free = await createUser(t); // retention 30
      const users = { keeps7, pro, admin, free };
      for (const u of Object.values(users))
        for (const n of [1, 2, 3])
          await post(u, '/api/url/add', { url: `https://example.com/r${n}` }).expect(200);
      const age = async (u: TestUser, days: number[]) => {
        const rows = await t.db.query(
          `SELECT id FROM audit_log WHERE workspace_id = $1 ORDER BY id`,
          [u.id],
        );
        for (const [i, d] of days.entries())
          await t.db.query(
            `UPDATE audit_log SET created_at = now() - make_interval(days => $2) WHERE id = $1`,
            [rows[i].id, d],
          );
      };
      await age(keeps7, [9, 8, 6]);
      await age(free, [31, 29, 0]);
      await age(pro, [400, 31, 0]);
      await age(admin, [400, 31, 0]);

      // batches of 1: the pass repeats until a batch finds fewer
      const pruned = await t.app.get(AuditLog).prune(1);
      expect(pruned).toBeGreaterThanOrEqual(3);
      const left = async (u: TestUser) => (await entries(u)).length;
      expect(await left(keeps7)).toBe(1);
      expect(await left(free)).toBe(2);
      expect(await left(pro)).toBe(3);
      expect(await left(admin)).toBe(3);
      expect(await t.app.get(AuditLog).prune()).toBe(0);
    });

    it('the worker prunes in its hourly retention slot, after statistics retention', async () => {
      const u = await createUser(t, {
        planId: await createPlan(t, { retention: 7 }),
        planType: 'lifetime',
      });
      await post(u, '/api/url/add', { url: 'https://example.com/w' }).expect(200);
      await t.db.query(
        `UPDATE audit_log SET created_at = now() - interval '9 days' WHERE workspace_id = $1`,
        [u.id],
      );
      // the slot is free: the worker's next fold job takes it
      await t.redis.client.del(t.redis.key('st', 'retention'));
      const worker = await createTestWorker();
      try {
        const deadline = Date.now() + 20_000;
        while ((await count(u)) > 0 && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 200));
        expect(await count(u)).toBe(0);
      } finally {
        await worker.close();
      }
    }, 30_000);
  });

  describe('at scale: a maintained count, pages from an index', () => {
    /** The workspace's maintained count (audit_counts), beside a count of its entries. */
    const counts = async (u: TestUser) => {
      const [{ kept }] = await t.db.query(
        `SELECT COALESCE(sum(n), 0)::int AS kept FROM audit_counts WHERE workspace_id = $1`,
        [u.id],
      );
      return { kept: kept as number, counted: await count(u) };
    };
    /** Both counts are `n`, and so is the list's `result` (rows written in SQL: the replica has them). */
    const expectCount = async (u: TestUser, n: number) => {
      expect(await counts(u)).toEqual({ kept: n, counted: n });
      await replicasCaughtUp();
      expect((await audit(u)).result).toBe(n);
    };

    describe('3 000 entries', () => {
      const N = 3000;
      let u: TestUser;
      /** the entries' ids, oldest first; entry g (1…N) is dated 2026-03-01 00:30 + g hours */
      let ids: number[] = [];
      const get = async (query: Record<string, string | number>) => {
        const res = await http().get('/api/audit').set(u.auth).query(query);
        expect(res.status).toBe(200);
        return res.body.data;
      };
      const newest = (list: number[], n: number) => [...list].reverse().slice(0, n);
      const idsOf = (data: { entries: Array<{ id: number }> }) => data.entries.map((e) => e.id);

      beforeAll(async () => {
        u = await createUser(t, { plan: 'Pro' }); // kept forever: no prune of another test takes them
        const neighbour = await createUser(t, { plan: 'Pro' });
        // seeded on one connection, which then reports its reads at once (not within a measure)
        ids = await t.db.transaction(async (em) => {
          // another workspace's busy day, beside the one the filter test reads
          await em.query(
            `INSERT INTO audit_log (workspace_id, actor_id, actor_email, action, resource_type, created_at)
             SELECT $1, $1, 'n@example.com', 'link.create', 'link',
                    timestamptz '2026-03-10 00:00:00+00' + make_interval(secs => g * 20)
               FROM generate_series(1, $2) g`,
            [neighbour.id, N],
          );
          const rows: Array<{ id: string; g: string }> = await em.query(
            `INSERT INTO audit_log (workspace_id, actor_id, actor_email, action, resource_type, resource_id, changes, created_at)
             SELECT $1, $1, $2, (ARRAY['link.create', 'link.update', 'qr.create'])[g % 3 + 1], 'link', g::text, '{url}',
                    timestamptz '2026-03-01 00:30:00+00' + make_interval(hours => g)
               FROM generate_series(1, $3) g
             RETURNING id, resource_id AS g`,
            [u.id, u.email, N],
          );
          await em.query('SELECT pg_stat_force_next_flush()');
          return rows.sort((a, b) => Number(a.g) - Number(b.g)).map((r) => Number(r.id));
        });
        // the table as autovacuum keeps it on a server (an append-only table is vacuumed for its
        // inserts): the planner's statistics, and pages marked all-visible for index-only scans
        await t.db.query('VACUUM (ANALYZE) audit_log');
        await replicasCaughtUp();
      });

      it('page 1 reads a few rows: the total is the maintained count, the page an index range', async () => {
        const { rows, result } = await fewestReads(
          t,
          ['audit_log'],
          ['audit_log'],
          1,
          () => get({ limit: 4 }),
          500,
        );
        // counting would read the workspace's 3 000 index entries at least
        expect(rows).toBeLessThan(500);
        expect(result).toMatchObject({
          result: N,
          perpage: 4,
          currentpage: 1,
          nextpage: 2,
          maxpage: N / 4,
        });
        expect(idsOf(result)).toEqual(newest(ids, 4));
        expect(result.entries[0]).toEqual({
          id: ids[N - 1],
          date: '2026-07-04 00:30:00',
          actor: { id: u.id, email: u.email },
          key: null,
          action: 'link.create',
          resource: { type: 'link', id: N },
          changes: ['url'],
        });
        // a deep page, the last one and one past it
        expect(idsOf(await get({ limit: 100, page: 17 }))).toEqual(newest(ids, 1700).slice(1600));
        const last = await get({ limit: 7, page: Math.ceil(N / 7) });
        expect(idsOf(last)).toEqual(newest(ids, N).slice(7 * (Math.ceil(N / 7) - 1)));
        expect(await get({ limit: 100, page: 31 })).toMatchObject({ result: N, entries: [] });
      }, 60_000);

      it('filters count their matches exactly; a date range reads only its own entries', async () => {
        // 2026-03-10 holds entries 216…239 (24: 8 of each action)
        const day = ids.slice(215, 239);
        const { rows, result } = await fewestReads(
          t,
          ['audit_log'],
          ['audit_log'],
          1,
          () => get({ from: '2026-03-10', to: '2026-03-10', limit: 5 }),
          500,
        );
        // without the (workspace, created_at) index: the workspace's 3 000 entries, or the day's
        // 3 024 of every workspace
        expect(rows).toBeLessThan(500);
        expect(result).toMatchObject({ result: 24, perpage: 5, maxpage: 5 });
        expect(idsOf(result)).toEqual(newest(day, 5));
        const qrDay = await get({ from: '2026-03-10', to: '2026-03-10', action: 'qr.*' });
        expect(qrDay.result).toBe(8);
        expect(idsOf(qrDay)).toEqual(
          newest(
            day.filter((_, i) => (216 + i) % 3 === 2),
            8,
          ),
        );
        expect((await get({ action: 'link.*', limit: 1 })).result).toBe(2000);
        expect((await get({ action: 'qr.create', actor: u.id, limit: 1 })).result).toBe(1000);
        // from 2026-07-01 00:00: entries 2928…3000
        expect((await get({ from: '2026-07-01', limit: 1 })).result).toBe(73);
      }, 60_000);

      it('a filtered count past the time budget is a 503 saying to narrow the dates, never a 500', async () => {
        // a change through the api: the caller's lists read the primary for a few seconds, where
        // the table is held while the list waits for it past LIST_QUERY_MS
        await post(u, '/api/url/add', { url: 'https://example.com/budget' }).expect(200);
        const res = await t.db.transaction(async (em) => {
          await em.query('LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE');
          return http().get('/api/audit').set(u.auth).query({ action: 'link.*' });
        });
        expectError(
          res,
          503,
          /^The audit log did not finish within its \d+ ms budget: its filters select too many entries to count in time; narrow from and to$/,
        );
        expect((await audit(u, '?limit=1')).result).toBe(N + 1);
      });
    });

    it('stays exact through changes at once, SQL writes, a withdrawn entry, the retention prune and a move', async () => {
      const u = await createUser(t, {
        planId: await createPlan(t, { retention: 7 }),
        planType: 'lifetime',
      });
      await expectCount(u, 0);
      // 12 changes at once, each in its own transaction on its own connection
      const made = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          post(u, '/api/url/add', { url: `https://example.com/c${i}` }).expect(200),
        ),
      );
      await expectCount(u, 12);
      // a change undone after it committed takes its entry back (AuditLog.withdraw)
      await t.app.get(AuditLog).withdraw({ user: { id: u.id } } as unknown as Principal, {
        action: 'link.create',
        resource: { type: 'link', id: made[0].body.id as number },
      });
      await expectCount(u, 11);
      // writers outside the api: a multi-row INSERT and DELETE in SQL
      await t.db.query(
        `INSERT INTO audit_log (workspace_id, actor_email, action, resource_type)
         SELECT $1, 'sql@example.com', 'link.update', 'link' FROM generate_series(1, 50)`,
        [u.id],
      );
      await expectCount(u, 61);
      await t.db.query(
        `DELETE FROM audit_log WHERE id IN (
           SELECT id FROM audit_log WHERE workspace_id = $1 AND actor_email = 'sql@example.com' LIMIT 20)`,
        [u.id],
      );
      await expectCount(u, 41);
      // the worker's retention pass: the plan keeps 7 days
      await t.db.query(
        `UPDATE audit_log SET created_at = now() - interval '9 days'
          WHERE id IN (SELECT id FROM audit_log WHERE workspace_id = $1 ORDER BY id LIMIT 25)`,
        [u.id],
      );
      await t.app.get(AuditLog).prune(10);
      await expectCount(u, 16);
      // entries moved to another workspace (by hand) are counted there
      const v = await createUser(t, { plan: 'Pro' });
      await t.db.query(
        `UPDATE audit_log SET workspace_id = $2
          WHERE id IN (SELECT id FROM audit_log WHERE workspace_id = $1 ORDER BY id LIMIT 3)`,
        [u.id, v.id],
      );
      await expectCount(u, 13);
      await expectCount(v, 3);
    });

    it("deleting a workspace's owner takes its entries and leaves no count behind", async () => {
      const admin = await createUser(t, { admin: true });
      const u = await createUser(t);
      await post(u, '/api/url/add', { url: 'https://example.com/gone' }).expect(200);
      expect(await counts(u)).toEqual({ kept: 1, counted: 1 });
      await del(admin, `/api/user/${u.id}/delete`).expect(200);
      expect(await counts(u)).toEqual({ kept: 0, counted: 0 });
      expect(
        await t.db.query(`SELECT * FROM audit_counts WHERE workspace_id = $1`, [u.id]),
      ).toEqual([]);
    });
  });
});
