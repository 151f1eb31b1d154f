import { RedisService } from '@app/redis';

import { createUser, expectError, TestUser, useTestApp } from './support/app';
import {
  apiRoutes,
  countOwned,
  insertLink,
  insertQr,
  resourceApi,
  uniq,
} from './support/resources';
import { CampaignRotation } from '../apps/api/src/campaigns/campaign-rotation';
import { quietReads, settledReads, TableReads, tableReads } from './support/reads';
import { eventually } from './support/stats';

const BASE = 'http://short.test';

const ROUTES = apiRoutes({
  'GET /api/campaigns': { list: 'campaigns' },
  'POST /api/campaign/add': { body: {} },
  'PUT /api/campaign/{id}/update': { body: { name: 'x' } },
  'DELETE /api/campaign/{id}/delete': {},
  'POST /api/campaign/{campaignid}/assign/{linkid}': {},
});

describe('campaigns', () => {
  const t = useTestApp();
  const { add, update, list, remove, onePage, expectPagination } = resourceApi(
    t,
    'campaign',
    '/api/campaigns',
    'campaigns',
  );
  const assign = (u: TestUser, campaignId: number | string, linkId: number | string) =>
    t.http().post(`/api/campaign/${campaignId}/assign/${linkId}`).set(u.auth);
  const row = async (id: number) =>
    (await t.db.query(`SELECT user_id, name, slug, public FROM campaigns WHERE id = $1`, [id]))[0];
  const campaignOf = async (linkId: number) =>
    (await t.db.query(`SELECT campaign_id FROM links WHERE id = $1`, [linkId]))[0].campaign_id;

  ROUTES.itChecksEveryRoute(t);

  describe('POST /api/campaign/add', () => {
    it('creates a campaign with every field, answering the documented shape', async () => {
      const u = await createUser(t);
      const slug = uniq('spring-');
      const res = await add(u, { name: 'Spring Sale', slug, public: true }).expect(200);
      const id = res.body.id;
      expect(res.body).toEqual({
        error: 0,
        id: expect.any(Number),
        domain: 'Spring Sale',
        name: 'Spring Sale',
        public: true,
        rotator: `${BASE}/r/${slug}`,
        list: `${BASE}/u/${slug}-${id}`,
      });
      expect(await row(id)).toEqual({ user_id: u.id, name: 'Spring Sale', slug, public: true });
    });

    it('creates a campaign from an empty body: no rotator, list from "campaign"', async () => {
      const u = await createUser(t);
      const res = await add(u, {}).expect(200);
      expect(res.body).toEqual({
        error: 0,
        id: expect.any(Number),
        domain: '',
        name: '',
        public: false,
        rotator: false,
        list: `${BASE}/u/campaign-${res.body.id}`,
      });
    });

    it('without a slug the list URL uses the slugified name', async () => {
      const u = await createUser(t);
      const res = await add(u, { name: '  Black Friday 2024!! ' }).expect(200);
      expect(res.body).toMatchObject({
        rotator: false,
        list: `${BASE}/u/black-friday-2024-${res.body.id}`,
      });
    });

    it.each([
      ['a numeric name', { name: 5 }, /^name: /],
      ['an empty name', { name: '' }, /^name: must be 1 to 100/],
      ['a 101-character name', { name: 'n'.repeat(101) }, /^name: must be 1 to 100/],
      ['a null name', { name: null }, /^name: /],
      ['slug "Ab"', { slug: 'Ab' }, /^slug: must be 3 to 50 of a-z, 0-9 and -/],
      ['slug "ab"', { slug: 'ab' }, /^slug: /],
      ['an upper-case slug', { slug: 'Promo' }, /^slug: /],
      ['a slug with a space', { slug: 'my promo' }, /^slug: /],
      ['a slug with a slash', { slug: 'a/b/c' }, /^slug: /],
      ['a 51-character slug', { slug: 'a'.repeat(51) }, /^slug: /],
      ['a numeric slug', { slug: 12345 }, /^slug: /],
      ['public "yes"', { public: 'yes' }, /^public: must be a boolean/],
      ['public 1', { public: 1 }, /^public: /],
      ['public null', { public: null }, /^public: /],
      ['an unknown field', { rotator: 'x' }, /rotator: unknown field/],
    ])('400 for %s, storing nothing', async (_label, body, message) => {
      const u = await createUser(t);
      expectError(await add(u, body), 400, message);
      expect(await countOwned(t, 'campaigns', u.id)).toBe(0);
    });

    it('accepts 3- and 50-character slugs', async () => {
      const u = await createUser(t);
      const long = uniq('').padEnd(50, '-');
      expect((await add(u, { slug: long }).expect(200)).body.rotator).toBe(`${BASE}/r/${long}`);
      await t.db.query(`DELETE FROM campaigns WHERE slug = 'a-3'`);
      expect((await add(u, { slug: 'a-3' }).expect(200)).body.rotator).toBe(`${BASE}/r/a-3`);
    });

    it('409 for a slug used by any campaign', async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const slug = uniq('dup-');
      await add(u, { slug }).expect(200);
      expectError(await add(other, { slug }), 409, /^slug: /);
      expectError(await add(u, { slug }), 409, /^slug: /);
      expect(await countOwned(t, 'campaigns', other.id)).toBe(0);
    });

    it('concurrent creates with one slug: exactly one wins, the others get 409', async () => {
      const users = await Promise.all([createUser(t), createUser(t), createUser(t)]);
      const slug = uniq('race-');
      const results = await Promise.all(users.map((u) => add(u, { slug })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expectError(r, 409, /^slug: /);
    });
  });

  describe('GET /api/campaigns', () => {
    it('lists the documented items, the name under domain as well as name', async () => {
      const u = await createUser(t);
      const slug = uniq('l-');
      const a = (await add(u, { name: 'First', slug, public: true }).expect(200)).body.id;
      const b = (await add(u, { name: 'Second' }).expect(200)).body.id;
      expect((await list(u).expect(200)).body).toEqual(
        onePage([
          {
            id: b,
            domain: 'Second',
            name: 'Second',
            public: false,
            rotator: false,
            list: `${BASE}/u/second-${b}`,
          },
          {
            id: a,
            domain: 'First',
            name: 'First',
            public: true,
            rotator: `${BASE}/r/${slug}`,
            list: `${BASE}/u/${slug}-${a}`,
          },
        ]),
      );
    });

    it("paginates the caller's campaigns only", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      await add(other, { name: 'theirs' }).expect(200);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await add(u, { name: `c${i}` }).expect(200)).body.id);
      await expectPagination(u, ids);
    });
  });

  describe('PUT /api/campaign/:id/update', () => {
    it('updates name, slug and public, answering the documented shape', async () => {
      const u = await createUser(t);
      const { id } = (await add(u, { name: 'Old', slug: uniq('old-') }).expect(200)).body;
      const slug = uniq('new-');
      const res = await update(u, id, { name: 'New name', slug, public: true }).expect(200);
      expect(res.body).toEqual({
        error: 0,
        id,
        domain: 'New name',
        name: 'New name',
        public: true,
        rotator: `${BASE}/r/${slug}`,
        list: `${BASE}/u/${slug}-${id}`,
      });
      expect(await row(id)).toEqual({ user_id: u.id, name: 'New name', slug, public: true });
    });

    it('keeps slug and public when omitted, keeps its own slug, and "" removes the rotator', async () => {
      const u = await createUser(t);
      const slug = uniq('keep-');
      const { id } = (await add(u, { name: 'A', slug, public: true }).expect(200)).body;
      expect((await update(u, id, { name: 'B' }).expect(200)).body).toMatchObject({
        name: 'B',
        public: true,
        rotator: `${BASE}/r/${slug}`,
      });
      await update(u, id, { name: 'B', slug }).expect(200);
      expect((await update(u, id, { name: 'C d', slug: '' }).expect(200)).body).toMatchObject({
        rotator: false,
        list: `${BASE}/u/c-d-${id}`,
      });
      expect(await row(id)).toMatchObject({ name: 'C d', slug: null, public: true });
    });

    it('400 without a name and for invalid fields; nothing changes', async () => {
      const u = await createUser(t);
      const slug = uniq('fixed-');
      const { id } = (await add(u, { name: 'Fixed', slug }).expect(200)).body;
      expectError(await update(u, id, {}), 400, /^name: /);
      expectError(await update(u, id, { slug: uniq('s-') }), 400, /^name: /);
      expectError(await update(u, id, { name: '' }), 400, /^name: /);
      expectError(await update(u, id, { name: 'x', slug: 'Ab' }), 400, /^slug: /);
      expectError(await update(u, id, { name: 'x', public: 'yes' }), 400, /^public: /);
      expectError(await update(u, id, { name: 'x', domain: 'y' }), 400, /domain: unknown field/);
      expectError(await update(u, 'abc', { name: 'x' }), 400, /^id: /);
      expect(await row(id)).toEqual({ user_id: u.id, name: 'Fixed', slug, public: false });
    });

    it("409 for another campaign's slug; nothing changes", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const taken = uniq('taken-');
      await add(other, { slug: taken }).expect(200);
      const { id } = (await add(u, { name: 'Mine' }).expect(200)).body;
      expectError(await update(u, id, { name: 'Renamed', slug: taken }), 409, /^slug: /);
      expect(await row(id)).toEqual({ user_id: u.id, name: 'Mine', slug: null, public: false });
    });

    it("404 for an unknown id and another user's campaign, which stays unchanged", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const { id } = (await add(owner, { name: 'Owned' }).expect(200)).body;
      expectError(await update(intruder, id, { name: 'Stolen' }), 404, /^Campaign not found$/);
      expectError(await update(owner, 2147483647, { name: 'x' }), 404, /^Campaign not found$/);
      expect(await row(id)).toMatchObject({ name: 'Owned' });
    });
  });

  describe('POST /api/campaign/:campaignid/assign/:linkid', () => {
    it('assigns a link; assigning it elsewhere moves it', async () => {
      const u = await createUser(t);
      const a = (await add(u, { name: 'A' }).expect(200)).body.id;
      const b = (await add(u, { name: 'B' }).expect(200)).body.id;
      const link = await insertLink(t, u.id);
      const res = await assign(u, a, link.id).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect(await campaignOf(link.id)).toBe(a);
      await assign(u, b, link.id).expect(200);
      expect(await campaignOf(link.id)).toBe(b);
      await assign(u, b, link.id).expect(200);
      expect(await campaignOf(link.id)).toBe(b);
    });

    it("404 for another user's link, a bio page, a QR link, an unknown link; nothing changes", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const c = (await add(u, { name: 'Mine' }).expect(200)).body.id;
      const theirs = await insertLink(t, other.id);
      const bio = await insertLink(t, u.id, { kind: 'bio' });
      const qr = await insertQr(t, u.id);
      expectError(await assign(u, c, theirs.id), 404, /^Link not found$/);
      expectError(await assign(u, c, bio.id), 404, /^Link not found$/);
      expectError(await assign(u, c, qr.linkId), 404, /^Link not found$/);
      expectError(await assign(u, c, 2147483647), 404, /^Link not found$/);
      for (const id of [theirs.id, bio.id, qr.linkId]) expect(await campaignOf(id)).toBeNull();
    });

    it("404 for your link into another user's campaign or an unknown one; the link stays where it was", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const mine = (await add(u, { name: 'Mine' }).expect(200)).body.id;
      const theirs = (await add(other, { name: 'Theirs' }).expect(200)).body.id;
      const link = await insertLink(t, u.id);
      await assign(u, mine, link.id).expect(200);
      expectError(await assign(u, theirs, link.id), 404, /^Campaign not found$/);
      expectError(await assign(u, 2147483647, link.id), 404, /^Campaign not found$/);
      expect(await campaignOf(link.id)).toBe(mine);
    });

    it('400 naming a malformed path id', async () => {
      const u = await createUser(t);
      expectError(await assign(u, 'x', 1), 400, /^campaignid: /);
      expectError(await assign(u, 1, '1.5'), 400, /^linkid: /);
      expectError(await assign(u, 0, 1), 400, /^campaignid: /);
    });
  });

  describe('DELETE /api/campaign/:id/delete', () => {
    it('deletes the campaign and unassigns its links, which stay', async () => {
      const u = await createUser(t);
      const slug = uniq('gone-');
      const { id } = (await add(u, { name: 'Gone', slug }).expect(200)).body;
      const l1 = await insertLink(t, u.id);
      const l2 = await insertLink(t, u.id);
      await assign(u, id, l1.id).expect(200);
      await assign(u, id, l2.id).expect(200);
      const res = await remove(u, id).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect(
        await t.db.query(`SELECT id, campaign_id FROM links WHERE id = ANY($1) ORDER BY id`, [
          [l1.id, l2.id],
        ]),
      ).toEqual([
        { id: l1.id, campaign_id: null },
        { id: l2.id, campaign_id: null },
      ]);
      expect((await list(u)).body.data).toMatchObject({ result: 0, campaigns: [] });
      expectError(await remove(u, id), 404);
      // the slug is free again
      await add(u, { slug }).expect(200);
    });

    it("404 for another user's campaign, which stays with its links", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const { id } = (await add(owner, { name: 'Kept' }).expect(200)).body;
      const link = await insertLink(t, owner.id);
      await assign(owner, id, link.id).expect(200);
      expectError(await remove(intruder, id), 404, /^Campaign not found$/);
      expectError(await remove(owner, 'nope'), 400, /^id: /);
      expect(await countOwned(t, 'campaigns', owner.id)).toBe(1);
      expect(await campaignOf(link.id)).toBe(id);
    });
  });
  describe('GET /r/<slug> at scale', () => {
    const visit = (slug: string) =>
      t.http().get(`/r/${slug}`).set('Host', 'short.test').redirects(0).expect(302);
    // rows and index entries of links read, lookups of campaigns (one a hit)
    const reads = () => tableReads(t, ['links'], ['campaigns']);
    const settled = (from: TableReads, scans: number) =>
      settledReads(t, ['links'], ['campaigns'], from, scans);

    it('a hit of a campaign of 20 000 links reads a bounded number of rows, and rotates over its live links by id', async () => {
      const u = await createUser(t);
      const slug = uniq('big-').toLowerCase();
      const [{ id: campaign }] = await t.db.query(
        `INSERT INTO campaigns (user_id, name, slug) VALUES ($1, 'Big', $2) RETURNING id`,
        [u.id, slug],
      );
      const made: Array<{ id: number; alias: string }> = await t.db.query(
        `INSERT INTO links (user_id, alias, url, campaign_id)
         SELECT $1, $2 || g, 'https://big.example/' || g, $3 FROM generate_series(1, 20000) g
         RETURNING id, alias`,
        [u.id, uniq('big').toLowerCase(), campaign],
      );
      // one statement of 20 000 links moved the rotation's version once
      expect(
        await t.db.query('SELECT version::int FROM campaign_rotations WHERE campaign_id = $1', [
          campaign,
        ]),
      ).toEqual([{ version: 1 }]);
      let live = made.sort((a, b) => a.id - b.id).map((l) => `${BASE}/${l.alias}`);
      let turn = 0;
      const hit = async () => {
        const expected = live[turn++ % live.length];
        expect((await visit(slug)).headers.location).toBe(expected);
      };

      // the first hit reads the campaign's links once (the build)
      let before = await reads();
      await hit();
      before = await settled(before, 1);
      for (let i = 0; i < 40; i++) await hit();
      let after = await settled(before, 40);
      // 40 hits read (almost) nothing of links; reading the campaign would be 40 × 20 000
      expect(after.rows - before.rows).toBeLessThan(500);

      // a member expired by hand (a change: the version moves, the next hit builds again) is skipped
      const gone = made[turn + 1];
      await t.db.query(`UPDATE links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        gone.id,
      ]);
      live = live.filter((url) => url !== `${BASE}/${gone.alias}`);
      for (let i = 0; i < 3; i++) await hit();

      // members expiring by time are skipped without a build
      const soon = made.slice(turn + 1, turn + 4);
      await t.db.query(
        `UPDATE links SET expires_at = now() + interval '1500 milliseconds' WHERE id = ANY($1)`,
        [soon.map((l) => l.id)],
      );
      await hit();
      await new Promise((r) => setTimeout(r, 1600));
      before = await quietReads(t, ['links'], ['campaigns']);
      live = live.filter((url) => !soon.some((l) => url === `${BASE}/${l.alias}`));
      for (let i = 0; i < 10; i++) await hit();
      after = await settled(before, 10);
      expect(after.rows - before.rows).toBeLessThan(500);

      // a link leaving the campaign, one joining it (through the API), both seen at once
      const leaving = made[turn + 2];
      await t.db.query('UPDATE links SET campaign_id = NULL WHERE id = $1', [leaving.id]);
      live = live.filter((url) => url !== `${BASE}/${leaving.alias}`);
      const joining = await insertLink(t, u.id);
      await assign(u, campaign, joining.id).expect(200);
      live.push(`${BASE}/${joining.alias}`);
      for (let i = 0; i < 5; i++) await hit();
      // the campaign's links: 20 000 (one left, one joined), of which the rotation's are the live ones
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM links WHERE campaign_id = $1`,
        [campaign],
      );
      expect(n).toBe(20_000);
      expect(live).toHaveLength(20_000 - 1 - 3 - 1 + 1);
    });

    it('without Redis each api process rotates on its own over the live links by id, then Redis takes over again', async () => {
      const u = await createUser(t);
      const slug = uniq('down-').toLowerCase();
      const { id } = (await add(u, { name: 'Down', slug }).expect(200)).body;
      const links = [
        await insertLink(t, u.id),
        await insertLink(t, u.id),
        await insertLink(t, u.id),
      ];
      for (const l of links) await assign(u, id, l.id).expect(200);
      await t.db.query(`UPDATE links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        links[1].id,
      ]);
      const order = [links[0], links[2]].map((l) => `${BASE}/${l.alias}`);
      const redis = t.app.get(RedisService);
      const down = jest.spyOn(redis, 'ready', 'get').mockReturnValue(false);
      try {
        const seen: string[] = [];
        for (let i = 0; i < 5; i++) seen.push((await visit(slug)).headers.location);
        expect(seen).toEqual([...order, ...order, order[0]]);
      } finally {
        down.mockRestore();
      }
      // the shared counter starts where Redis left it (nothing taken while it was away)
      expect((await visit(slug)).headers.location).toBe(order[0]);
      expect((await visit(slug)).headers.location).toBe(order[1]);
    });

    it('a hit that finds its process running two builds is answered from the index, not queued', async () => {
      const u = await createUser(t);
      const campaigns: Array<{ slug: string; first: string }> = [];
      for (let i = 0; i < 3; i++) {
        const slug = uniq('busy-').toLowerCase();
        const { id } = (await add(u, { name: 'Busy', slug }).expect(200)).body;
        const links = [await insertLink(t, u.id), await insertLink(t, u.id)];
        for (const l of links) await assign(u, id, l.id).expect(200);
        campaigns.push({ slug, first: `${BASE}/${links[0].alias}` });
      }
      const rotation = t.app.get(CampaignRotation) as unknown as {
        load(id: number): Promise<string>;
        builds: Map<number, unknown>;
      };
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      const load = jest.spyOn(rotation, 'load').mockImplementation(async () => {
        await held;
        throw new Error('held on purpose');
      });
      try {
        const waiting = campaigns.slice(0, 2).map((c) => visit(c.slug).then((r) => r));
        await eventually(async () => rotation.builds.size === 2, 5_000, 20);
        expect((await visit(campaigns[2].slug)).headers.location).toBe(campaigns[2].first);
        expect(load).toHaveBeenCalledTimes(2);
        release();
        // the held builds failed: their hits are answered from the index too
        for (const [i, res] of (await Promise.all(waiting)).entries())
          expect(res.headers.location).toBe(campaigns[i].first);
      } finally {
        release();
        load.mockRestore();
      }
    });

    it('the public list page reads at most the newest 5 000 links of a campaign of 8 000 mostly private ones', async () => {
      const u = await createUser(t);
      const slug = uniq('pub-').toLowerCase();
      const { id } = (await add(u, { name: 'Pub', slug, public: true }).expect(200)).body;
      const prefix = uniq('pl').toLowerCase();
      // links 1–2 999 public, then 5 000 private, then 1 public (the newest)
      await t.db.query(
        `INSERT INTO links (user_id, alias, url, campaign_id, status)
         SELECT $1, $2 || g, 'https://pub.example/' || g, $3,
                CASE WHEN g < 3000 OR g = 8000 THEN 'public' ELSE 'private' END
           FROM generate_series(1, 8000) g ORDER BY g`,
        [u.id, prefix, id],
      );
      const res = await t.http().get(`/u/${slug}-${id}`).set('Host', 'short.test').expect(200);
      const shown = [...res.text.matchAll(/href="[^"]*\/([^/"]+)"/g)]
        .map((m) => m[1])
        .filter((a) => a.startsWith(prefix));
      // the newest public link only: the older public ones are past the newest 5 000
      expect(shown).toEqual([`${prefix}8000`]);
    });

    it('an empty campaign, one whose links all expired, and one deleted answer 404; a campaign of three rotates and wraps', async () => {
      const u = await createUser(t);
      const slug = uniq('few-').toLowerCase();
      const { id } = (await add(u, { name: 'Few', slug }).expect(200)).body;
      const notFound = () =>
        t.http().get(`/r/${slug}`).set('Host', 'short.test').redirects(0).expect(404);
      await notFound();
      const links = [
        await insertLink(t, u.id),
        await insertLink(t, u.id),
        await insertLink(t, u.id),
      ];
      for (const l of links) await assign(u, id, l.id).expect(200);
      const seen: string[] = [];
      for (let i = 0; i < 7; i++) seen.push((await visit(slug)).headers.location);
      const order = links.map((l) => `${BASE}/${l.alias}`);
      expect(seen).toEqual([...order, ...order, order[0]]);
      await t.db.query(
        `UPDATE links SET expires_at = now() + interval '1 second' WHERE campaign_id = $1`,
        [id],
      );
      await visit(slug);
      await new Promise((r) => setTimeout(r, 1100));
      await notFound();
      await notFound();
      await remove(u, id).expect(200);
      await notFound();
    });
  });
});
