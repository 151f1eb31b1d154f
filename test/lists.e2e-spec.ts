import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { listLimits, ListBudget } from '@app/common';
import { inTransaction } from '@app/database';

import {
  createPlan,
  createTestWorker,
  createUser,
  expectError,
  TestApp,
  TestUser,
  useTestApp,
} from './support/app';
import { addLink, uniq } from './support/links';
import { insertLink, insertQr } from './support/resources';
import { replicasCaughtUp } from './support/services';
import { fewestReads } from './support/reads';
import { eventually } from './support/stats';

/** What `link_counts` holds for a user, by kind, against a count of the rows themselves. */
async function countsOf(t: TestApp, userId: number) {
  const kept: Array<{ kind: string; n: number }> = await t.db.query(
    `SELECT kind, sum(n)::int AS n FROM link_counts WHERE user_id = $1 GROUP BY kind HAVING sum(n) <> 0 ORDER BY kind`,
    [userId],
  );
  const counted: Array<{ kind: string; n: number }> = await t.db.query(
    `SELECT kind, count(*)::int AS n FROM links WHERE user_id = $1 GROUP BY kind
     UNION ALL SELECT 'qr-link', count(*)::int FROM qr_codes WHERE user_id = $1 AND type = 'link' HAVING count(*) > 0
     UNION ALL SELECT 'qrcode', count(*)::int FROM qr_codes WHERE user_id = $1 HAVING count(*) > 0
     UNION ALL SELECT 'campaign', count(*)::int FROM campaigns WHERE user_id = $1 HAVING count(*) > 0
     UNION ALL SELECT 'channel', count(*)::int FROM channels WHERE user_id = $1 HAVING count(*) > 0
     ORDER BY kind`,
    [userId],
  );
  return { kept, counted };
}

describe('lists at scale: GET /api/urls totals, pages, sorts, search and budgets', () => {
  const t = useTestApp();
  let unlimited: number;

  beforeAll(async () => {
    unlimited = await createPlan(t, { links: 0, multiple: { enabled: '1' } });
  });

  // rows written here straight into Postgres carry no read-your-writes mark: with a replica
  // (TEST_PG_REPLICA=1) the list waits for it to replay them
  const list = async (u: TestUser, query: Record<string, string | number> = {}) => {
    await replicasCaughtUp();
    return listNow(u, query);
  };
  /** The same request without waiting for the replica: for load, once the rows are replayed. */
  const listNow = (u: TestUser, query: Record<string, string | number> = {}) =>
    t.http().get('/api/urls').set(u.auth).query(query);

  async function result(u: TestUser, query: Record<string, string | number> = {}) {
    const res = await list(u, query);
    expect(res.status).toBe(200);
    expect(res.body.error).toBe('0');
    return res.body.data as {
      result: number;
      perpage: number;
      currentpage: number;
      nextpage: number;
      maxpage: number;
      urls: Array<{ id: number; alias: string; clicks: number }>;
    };
  }

  describe('the maintained count', () => {
    let worker: INestApplicationContext;
    beforeAll(async () => {
      worker = await createTestWorker();
    });
    afterAll(() => worker.close());

    it('stays exact through add, bulk add, delete, SQL writes, import, a change of owner and QR codes', async () => {
      const u = await createUser(t, { planId: unlimited });
      const expectTotal = async (n: number) => {
        expect((await result(u)).result).toBe(n);
        const { kept, counted } = await countsOf(t, u.id);
        expect(kept).toEqual(counted);
      };
      await expectTotal(0);
      const a = await addLink(t, u, { url: 'https://count.example/1' });
      await addLink(t, u, { url: 'https://count.example/2' });
      await expectTotal(2);
      const bulk = await t
        .http()
        .post('/api/url/bulk')
        .set(u.auth)
        .send({ urls: [1, 2, 3].map((i) => ({ url: `https://count.example/bulk${i}` })) });
      expect(bulk.status).toBe(200);
      await expectTotal(5);
      await t.http().delete(`/api/url/${a.id}/delete`).set(u.auth).expect(200);
      await expectTotal(4);
      // writers outside the api: a multi-row INSERT and DELETE in SQL
      await t.db.query(
        `INSERT INTO links (user_id, alias, url) SELECT $1, $2 || g, 'https://sql.example/' || g FROM generate_series(1, 50) g`,
        [u.id, uniq('s')],
      );
      await expectTotal(54);
      await t.db.query(
        `DELETE FROM links WHERE id IN (SELECT id FROM links WHERE user_id = $1 AND url LIKE 'https://sql.example/%' LIMIT 20)`,
        [u.id],
      );
      await expectTotal(34);
      // an import, run by the worker
      const p = uniq('i');
      const csv = `url,alias\nhttps://imp.example/1,${p}a\nhttps://imp.example/2,${p}b\nhttps://imp.example/3,${p}c\n`;
      const started = await t
        .http()
        .post('/api/import')
        .set(u.auth)
        .set('Content-Type', 'text/csv')
        .send(csv);
      expect(started.status).toBe(200);
      await eventually(async () => {
        const res = await t.http().get(`/api/import/${started.body.id}`).set(u.auth);
        return res.body.data?.status === 'done';
      }, 30_000);
      await expectTotal(37);
      // a link moved to another user leaves one count for the other
      const v = await createUser(t, { planId: unlimited });
      const moved = await insertLink(t, u.id);
      await expectTotal(38);
      await t.db.query(`UPDATE links SET user_id = $1 WHERE id = $2`, [v.id, moved.id]);
      await expectTotal(37);
      expect((await result(v)).result).toBe(1);
      // QR codes and bio pages are other kinds: not in the list, in the plan count
      await insertQr(t, u.id);
      await insertLink(t, u.id, { kind: 'bio' });
      await expectTotal(37);
      const [plan] = await t.db.query(
        `SELECT COALESCE(sum(n), 0)::int AS n FROM link_counts WHERE user_id = $1 AND kind IN ('link', 'bio', 'qr-link')`,
        [u.id],
      );
      expect(plan.n).toBe(39);
    });

    it('the plan limit reads the maintained count: a cap of 3 stops the 4th link, and a deletion frees one', async () => {
      const capped = await createPlan(t, { links: 3 });
      const u = await createUser(t, { planId: capped });
      await insertQr(t, u.id);
      await addLink(t, u, { url: 'https://cap.example/1' });
      const b = await addLink(t, u, { url: 'https://cap.example/2' });
      expectError(
        await t.http().post('/api/url/add').set(u.auth).send({ url: 'https://cap.example/3' }),
        403,
        /allows 3 links/,
      );
      await t.http().delete(`/api/url/${b.id}/delete`).set(u.auth).expect(200);
      await addLink(t, u, { url: 'https://cap.example/4' });
    });

    it('GET /api/qr: its total is the maintained count of QR codes, its pages newest first', async () => {
      const u = await createUser(t, { planId: unlimited });
      const qrs = [];
      for (let i = 0; i < 5; i++) qrs.push(await insertQr(t, u.id, { name: `qr${i}` }));
      const qrList = async (query: Record<string, number>) => {
        await replicasCaughtUp();
        const res = await t.http().get('/api/qr').set(u.auth).query(query);
        expect(res.status).toBe(200);
        return res.body.data as { result: number; maxpage: number; qrs: Array<{ id: number }> };
      };
      const newest = qrs.map((q) => q.id).reverse();
      const seen: number[] = [];
      for (let page = 1; page <= 3; page++) {
        const data = await qrList({ limit: 2, page });
        expect(data).toMatchObject({ result: 5, maxpage: 3 });
        seen.push(...data.qrs.map((q) => q.id));
      }
      expect(seen).toEqual(newest);
      await t.http().delete(`/api/qr/${qrs[1].id}/delete`).set(u.auth).expect(200);
      expect((await qrList({})).result).toBe(4);
      expect((await qrList({ page: 3, limit: 2 })).qrs).toEqual([]);
      const { kept, counted } = await countsOf(t, u.id);
      expect(kept).toEqual(counted);
    });

    it("deleting a user leaves no count behind (the cascade to its links skips the user's counts)", async () => {
      const admin = await createUser(t, { admin: true });
      const u = await createUser(t, { planId: unlimited });
      await addLink(t, u, { url: 'https://gone.example/1' });
      await t.http().delete(`/api/user/${u.id}/delete`).set(admin.auth).expect(200);
      const rows = await t.db.query(`SELECT * FROM link_counts WHERE user_id = $1`, [u.id]);
      expect(rows).toEqual([]);
    });
  });

  describe("bio pages, campaigns, channels and a channel's items", () => {
    // what these lists read, and the counters they read once each
    const READ = ['links', 'bio_pages', 'campaigns', 'channels', 'channel_items'];
    const COUNTERS = ['link_counts', 'channel_item_counts'];

    it('totals from maintained counts, pages newest first from an index: 4 lists of 3 000 rows each read a few rows', async () => {
      const u = await createUser(t, { planId: unlimited });
      const N = 3000;
      // seeded on one connection, which then reports its reads at once (not within the measure)
      const seeded = await t.db.transaction(async (em) => {
        const campaigns: Array<{ id: number }> = await em.query(
          `INSERT INTO campaigns (user_id, name) SELECT $1, 'C' || g FROM generate_series(1, $2) g RETURNING id`,
          [u.id, N],
        );
        const channels: Array<{ id: number }> = await em.query(
          `INSERT INTO channels (user_id, name) SELECT $1, 'Ch' || g FROM generate_series(1, $2) g RETURNING id`,
          [u.id, N],
        );
        const links: Array<{ id: number }> = await em.query(
          `INSERT INTO links (user_id, alias, url) SELECT $1, $2 || g, 'https://item.example/' || g
             FROM generate_series(1, $3) g RETURNING id`,
          [u.id, uniq('it'), N],
        );
        // bio pages last: in this small database, where half the rows are this user's bio pages,
        // the planner may walk links_pkey backward for the newest bio pages instead of
        // links_user_idx, reading the user's newer links first (with many users it does not)
        const bios: Array<{ id: number }> = await em.query(
          `WITH l AS (INSERT INTO links (user_id, kind, alias, url)
                      SELECT $1, 'bio', $2 || g, '' FROM generate_series(1, $3) g RETURNING id)
           INSERT INTO bio_pages (link_id, user_id, name) SELECT id, $1, 'Bio ' || id FROM l RETURNING link_id AS id`,
          [u.id, uniq('bio'), N],
        );
        const items: Array<{ id: number }> = await em.query(
          `INSERT INTO channel_items (channel_id, user_id, item_type, item_id)
           SELECT $1, $2, 'links', id FROM unnest($3::int[]) id ORDER BY id RETURNING id`,
          [Math.max(...channels.map((c) => c.id)), u.id, links.map((l) => l.id)],
        );
        // the planner sees the tables as they are (autovacuum's ANALYZE does it on a server)
        await em.query(`ANALYZE links, bio_pages, campaigns, channels, channel_items`);
        await em.query('SELECT pg_stat_force_next_flush()');
        return { bios, campaigns, channels, links, items };
      });
      const { bios, campaigns, channels, links, items } = seeded;
      const channel = Math.max(...channels.map((c) => c.id));
      const newest = (rows: Array<{ id: number }>, n: number) =>
        rows
          .map((r) => r.id)
          .sort((a, b) => b - a)
          .slice(0, n);
      const get = async (path: string, query: Record<string, number>) => {
        const res = await t.http().get(path).set(u.auth).query(query);
        expect(res.status).toBe(200);
        return res.body.data;
      };

      const { rows, result } = await fewestReads(
        t,
        READ,
        COUNTERS,
        4,
        () =>
          Promise.all([
            get('/api/bio', { limit: 4 }),
            get('/api/campaigns', { limit: 4 }),
            get('/api/channels', { limit: 4 }),
            get(`/api/channel/${channel}`, { limit: 4 }),
          ]),
        1000,
      );
      const [bio, camp, chan, item] = result;
      // counting would read 4 × 3 000 index entries at least
      expect(rows).toBeLessThan(1000);

      const pageOf = { result: N, perpage: 4, currentpage: 1, nextpage: 2, maxpage: N / 4 };
      expect(bio).toMatchObject(pageOf);
      expect(bio.bios.map((b: { id: number }) => b.id)).toEqual(newest(bios, 4));
      expect(camp).toMatchObject(pageOf);
      expect(camp.campaigns.map((c: { id: number }) => c.id)).toEqual(newest(campaigns, 4));
      expect(chan).toMatchObject(pageOf);
      expect(chan.channels.map((c: { id: number }) => c.id)).toEqual(newest(channels, 4));
      expect(item).toMatchObject(pageOf);
      expect(item.items.map((i: { id: number }) => i.id)).toEqual(newest(links, 4));
      // the last page, and one past it
      const last = await get('/api/campaigns', { limit: 7, page: Math.ceil(N / 7) });
      expect(last.campaigns.map((c: { id: number }) => c.id)).toEqual(
        campaigns
          .map((c) => c.id)
          .sort((a, b) => b - a)
          .slice(7 * (Math.ceil(N / 7) - 1)),
      );
      expect((await get('/api/bio', { limit: 100, page: 31 })).bios).toEqual([]);

      // items leave the channel with their link: deleted through the API, by SQL, given away
      const [gone, bySql, given] = newest(links, 3);
      await t.http().delete(`/api/url/${gone}/delete`).set(u.auth).expect(200);
      await t.db.query('DELETE FROM links WHERE id = $1', [bySql]);
      const other = await createUser(t);
      await t.db.query('UPDATE links SET user_id = $1 WHERE id = $2', [other.id, given]);
      const rest = await get(`/api/channel/${channel}`, { limit: 2 });
      expect(rest).toMatchObject({ result: N - 3 });
      expect(rest.items.map((i: { id: number }) => i.id)).toEqual(newest(links, 5).slice(3));
      // deletions by SQL and the API keep every count exact
      await t.db.query('DELETE FROM campaigns WHERE id = ANY($1)', [newest(campaigns, 10)]);
      await t.http().delete(`/api/channel/${channels[0].id}/delete`).set(u.auth).expect(200);
      await t
        .http()
        .delete(`/api/bio/${newest(bios, 1)[0]}/delete`)
        .set(u.auth)
        .expect(200);
      expect((await get('/api/campaigns', {})).result).toBe(N - 10);
      expect((await get('/api/channels', {})).result).toBe(N - 1);
      expect((await get('/api/bio', {})).result).toBe(N - 1);
      const { kept, counted } = await countsOf(t, u.id);
      expect(kept).toEqual(counted);
      const [{ n }] = await t.db.query(
        `SELECT COALESCE(sum(n), 0)::int AS n FROM channel_item_counts WHERE channel_id = $1`,
        [channel],
      );
      const [{ m }] = await t.db.query(
        'SELECT count(*)::int AS m FROM channel_items WHERE channel_id = $1',
        [channel],
      );
      expect([n, m]).toEqual([N - 3, N - 3]);
      expect(items).toHaveLength(N);
    });
    it("are not refused while the user's list slots are taken (the dashboard loads several at once)", async () => {
      const u = await createUser(t, { planId: unlimited });
      const channel = (await t.http().post('/api/channel/add').set(u.auth).send({ name: 'C' })).body
        .id as number;
      const budget = t.app.get(ListBudget) as unknown as { perUser: Map<number, number> };
      budget.perUser.set(u.id, 99);
      try {
        expectError(await t.http().get('/api/urls').set(u.auth), 429, /at most 2 of yours/);
        for (const path of [
          '/api/bio',
          '/api/campaigns',
          '/api/channels',
          `/api/channel/${channel}`,
        ])
          expect((await t.http().get(path).set(u.auth)).status).toBe(200);
      } finally {
        budget.perUser.delete(u.id);
      }
    });
  });

  describe('pages and sorts', () => {
    const u = {} as TestUser;
    let ids: number[] = [];
    const clicks = new Map<number, number>();

    beforeAll(async () => {
      Object.assign(u, await createUser(t, { planId: unlimited }));
      const rows: Array<{ id: number }> = await t.db.query(
        `INSERT INTO links (user_id, alias, url, title)
         SELECT $1, $2 || g, 'https://page.example/' || g, 'Page ' || g FROM generate_series(1, 230) g
         RETURNING id`,
        [u.id, uniq('p')],
      );
      ids = rows.map((r) => r.id).sort((a, b) => a - b);
      // clicks on every third link, with ties
      const withClicks = ids.filter((_, i) => i % 3 === 0);
      withClicks.forEach((id, i) => clicks.set(id, (i * 7) % 11));
      await t.db.query(
        `INSERT INTO link_stats_total (link_id, clicks, uniques) SELECT * FROM unnest($1::int[], $2::bigint[], $2::bigint[])`,
        [withClicks, withClicks.map((id) => clicks.get(id))],
      );
    });

    const byDate = () => [...ids].sort((a, b) => b - a);
    const byClick = () =>
      [...ids].sort((a, b) => (clicks.get(b) ?? 0) - (clicks.get(a) ?? 0) || b - a);

    it.each([
      ['date', byDate],
      ['click', byClick],
    ] as const)(
      'order=%s: every page in order, exact counters, a page past the end',
      async (order, expected) => {
        for (const limit of [15, 100]) {
          const want = expected();
          const maxpage = Math.ceil(want.length / limit);
          const seen: number[] = [];
          for (let page = 1; page <= maxpage + 1; page++) {
            const data = await result(u, { order, limit, page });
            expect(data).toMatchObject({
              result: 230,
              perpage: limit,
              currentpage: page,
              maxpage,
              nextpage: page < maxpage ? page + 1 : 0,
            });
            if (page > maxpage) expect(data.urls).toEqual([]);
            seen.push(...data.urls.map((x) => x.id));
          }
          expect(seen).toEqual(want);
        }
        // the default order is date
        expect((await result(u, { limit: 5 })).urls.map((x) => x.id)).toEqual(byDate().slice(0, 5));
      },
    );

    it('order=click shows the folded click totals it sorted by', async () => {
      const data = await result(u, { order: 'click', limit: 3 });
      expect(data.urls.map((x) => x.clicks)).toEqual(
        byClick()
          .slice(0, 3)
          .map((id) => clicks.get(id) ?? 0),
      );
    });

    it("order=click follows a link moved to another user (its total's owner moves with it)", async () => {
      const from = await createUser(t, { planId: unlimited });
      const to = await createUser(t, { planId: unlimited });
      const moved = await insertLink(t, from.id);
      const stays = await insertLink(t, from.id);
      const theirs = await insertLink(t, to.id);
      await t.db.query(
        `INSERT INTO link_stats_total (link_id, clicks, uniques) VALUES ($1, 9, 1), ($2, 3, 1), ($3, 5, 1)`,
        [moved.id, stays.id, theirs.id],
      );
      const ids = async (u: TestUser) =>
        (await result(u, { order: 'click' })).urls.map((x) => x.id);
      expect(await ids(from)).toEqual([moved.id, stays.id]);
      await t.db.query(`UPDATE links SET user_id = $1 WHERE id = $2`, [to.id, moved.id]);
      expect(await ids(from)).toEqual([stays.id]);
      expect(await ids(to)).toEqual([moved.id, theirs.id]);
    });

    it('short narrows to one alias with its own total', async () => {
      const [row] = await t.db.query(`SELECT alias FROM links WHERE id = $1`, [ids[5]]);
      const data = await result(u, { short: row.alias });
      expect(data).toMatchObject({ result: 1, maxpage: 1, nextpage: 0 });
      expect(data.urls.map((x) => x.id)).toEqual([ids[5]]);
      expect((await result(u, { short: 'nosuchalias' })).result).toBe(0);
    });
  });

  describe('q search', () => {
    const u = {} as TestUser;
    const made: Array<{ id: number; url: string; title: string; alias: string }> = [];

    beforeAll(async () => {
      Object.assign(u, await createUser(t, { planId: unlimited }));
      const p = uniq('q');
      const rows = [
        { url: 'https://shop.example/50%_off', title: 'Half price', alias: `${p}sale` },
        { url: 'https://shop.example/50x-off', title: 'Not a percent', alias: `${p}x` },
        { url: 'https://shop.example/a_b', title: 'Underscore', alias: `${p}u` },
        { url: 'https://shop.example/aXb', title: 'No underscore', alias: `${p}v` },
        { url: 'https://garden.example/roses', title: 'Gärten und Blumen', alias: `${p}g1` },
        { url: 'https://garden.example/tulips', title: 'GARDEN tulips', alias: `${p}g2` },
        { url: 'https://other.example/', title: '日本語のページ', alias: `${p}jp` },
        { url: 'https://mode.example/', title: 'Übergrößen Mode', alias: `${p}ue` },
        { url: 'https://other.example/b', title: 'plain', alias: `${p}Gardenalias` },
      ];
      for (const r of rows) {
        const link = await insertLink(t, u.id, r);
        made.push({ id: link.id, ...r });
      }
      // more links, which only some searches find
      await t.db.query(
        `INSERT INTO links (user_id, alias, url, title) SELECT $1, $2 || g, 'https://filler.example/' || g, 'filler' FROM generate_series(1, 300) g`,
        [u.id, uniq('f')],
      );
      made.length = 0;
      made.push(
        ...(await t.db.query(`SELECT id, url, title, alias FROM links WHERE user_id = $1`, [u.id])),
      );
    });

    /** The links a case-insensitive literal substring search of url, title and alias finds, newest first. */
    const matching = (q: string) =>
      made
        .filter((r) =>
          [r.url, r.title, r.alias].some((f) => f.toLowerCase().includes(q.toLowerCase())),
        )
        .map((r) => r.id)
        .sort((a, b) => b - a);

    it.each([
      ['garden', 'a word in url, title and alias, any case'],
      ['50%_', '% and _ are literal'],
      ['a_b', '_ is literal'],
      ['ärten', 'unicode'],
      ['日本語', 'unicode without spaces'],
      ['ergröß', 'multibyte letters inside a word'],
      ['ÜBERGR', 'a multibyte letter starting a word, other case'],
      ['und blu', 'across words, the last one cut'],
      ['本', 'one character (no trigram)'],
      ['x', 'one ASCII character'],
      ['ab', 'two characters'],
      ['%', 'a lone %'],
      ['nothing-matches-this', 'no match'],
    ])('q=%s (%s): exactly the matching links, with their total', async (q) => {
      const want = matching(q);
      const data = await result(u, { q, limit: 100 });
      expect(data.result).toBe(want.length);
      expect(data.maxpage).toBe(Math.max(1, Math.ceil(want.length / 100)));
      expect(data.urls.map((x) => x.id)).toEqual(want.slice(0, 100));
    });

    it('q pages and sorts like the list, with the total of the search', async () => {
      const first = await result(u, { q: 'garden', limit: 1, page: 1 });
      const second = await result(u, { q: 'garden', limit: 1, page: 2 });
      expect(first).toMatchObject({ result: 3, maxpage: 3, nextpage: 2 });
      expect(second).toMatchObject({ result: 3, currentpage: 2, nextpage: 3 });
      expect([...first.urls, ...second.urls].map((x) => x.id)).toEqual(
        matching('garden').slice(0, 2),
      );
      const clicked = await result(u, { q: 'garden', order: 'click' });
      expect(clicked.urls.map((x) => x.id)).toEqual(matching('garden'));
    });

    it("a search reads the searching user's matches, neither the user's other links nor other users' (links_search_keys)", async () => {
      // a user with 5 000 links, 2 of them matching; another user with 5 000 links all matching
      const [me, other] = [
        await createUser(t, { planId: unlimited }),
        await createUser(t, { planId: unlimited }),
      ];
      const fill = `INSERT INTO links (user_id, alias, url, title)
        SELECT $1, $2 || g, 'https://x.example/' || g, $3 || g FROM generate_series(1, 5000) g RETURNING id`;
      await t.db.query(fill, [me.id, uniq('mine'), 'Roses ']);
      await t.db.query(fill, [other.id, uniq('og'), 'Garden ']);
      const mine = await t.db.query(
        `INSERT INTO links (user_id, alias, url, title) VALUES ($1, $2, 'https://a.example/', 'My garden'),
           ($1, $3, 'https://garden.example/', '') RETURNING id`,
        [me.id, uniq('g1'), uniq('g2')],
      );
      // as autovacuum leaves it: the index's pending entries merged (a long pending list, which
      // every search of a GIN index reads whole, makes the planner prefer the user's index)
      await t.db.query(`SELECT gin_clean_pending_list('links_search_keys'::regclass)`);
      await t.db.query('ANALYZE links');
      await replicasCaughtUp();
      const { rows, result: data } = await fewestReads(
        t,
        ['links'],
        ['links'],
        2,
        async () => {
          const res = await t.http().get('/api/urls').set(me.auth).query({ q: 'garden' });
          expect(res.status).toBe(200);
          return res.body.data as { result: number; urls: Array<{ id: number }> };
        },
        1000,
      );
      expect(data.result).toBe(2);
      expect(data.urls.map((x) => x.id)).toEqual(mine.map((m: { id: number }) => m.id).reverse());
      // a table-wide trigram index reads the other user's 5 000 entries; the user's own index,
      // the user's 5 000 links
      expect(rows).toBeLessThan(1000);
    }, 90_000);
  });

  describe('the time budget', () => {
    const slow = useTestApp({ LIST_QUERY_MS: '100' });

    it('a search past LIST_QUERY_MS ends in 503 naming the budget, never a 500', async () => {
      const u = await createUser(slow, { planId: unlimited });
      await slow.db.query(
        `INSERT INTO links (user_id, alias, url, title) SELECT $1, $2 || g, 'https://budget.example/' || g || '/' || repeat('abcdefgh', 25), 'Budget page ' || (g * 7919 % 150000) FROM generate_series(1, 150000) g`,
        [u.id, uniq('b')],
      );
      await replicasCaughtUp();
      // a two-letter word has no trigram: it reads all 150 000 of the user's links (long URLs of
      // a few trigrams: slow to search, quick to index)
      const res = await slow.http().get('/api/urls').set(u.auth).query({ q: 'zq' });
      expectError(res, 503, /did not finish within its 100 ms budget/);
      // the list itself stays within it
      const ok = await slow.http().get('/api/urls').set(u.auth).query({ page: 1000 });
      expect(ok.status).toBe(200);
      expect(ok.body.data.result).toBe(150000);
    }, 90_000);
  });
  it("a list's transaction that fails after BEGIN is rolled back before its connection goes back to the pool", async () => {
    // a pool of one connection: what one transaction leaves on it, the next query meets
    const ds = await new DataSource({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      extra: { max: 1 },
    }).initialize();
    try {
      const one = () => ds.query('SELECT 1 AS one');
      // BEGIN runs, its SET LOCAL fails (out of range): the transaction is open and aborted
      await expect(
        inTransaction(ds, 'BEGIN; SET LOCAL statement_timeout = -1', async () => 1),
      ).rejects.toThrow(/statement_timeout/);
      await expect(one()).resolves.toEqual([{ one: 1 }]);
      // a list's limits: its timeout, no JIT, no parallel workers
      await expect(
        inTransaction(ds, `BEGIN; ${listLimits(1234)}`, (em) =>
          em.query(
            `SELECT current_setting('statement_timeout') AS timeout, current_setting('jit') AS jit,
                    current_setting('max_parallel_workers_per_gather') AS workers`,
          ),
        ),
      ).resolves.toEqual([{ timeout: '1234ms', jit: 'off', workers: '0' }]);
      // a query past its timeout: cancelled, rolled back
      await expect(
        inTransaction(ds, `BEGIN; ${listLimits(50)}`, (em) => em.query('SELECT pg_sleep(0.5)')),
      ).rejects.toThrow(/statement timeout/);
      await expect(one()).resolves.toEqual([{ one: 1 }]);
    } finally {
      await ds.destroy();
    }
  });

  describe('the connection budget', () => {
    it("24 clients searching one user's 150 000 links without pause leave redirects, link reads and readiness of others fast", async () => {
      const big = await createUser(t, { planId: unlimited });
      await t.db.query(
        `INSERT INTO links (user_id, alias, url, title) SELECT $1, $2 || g, 'https://many.example/' || g, 'Many pages ' || (g * 7919 % 150000) FROM generate_series(1, 150000) g`,
        [big.id, uniq('m')],
      );
      const other = await createUser(t);
      // inserted in SQL: in no cache, so each first visit is a cold redirect read from Postgres
      const links = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          insertLink(t, other.id, { url: `https://cold.example/${i}` }),
        ),
      );
      const warm = await insertLink(t, other.id, { url: 'https://cold.example/warm' });
      // Replayed once, here: the load below must not wait for the replica at every request as
      // `list` does (a new connection to each server per call), which would load the machine
      // with the harness's own connections rather than with the user's searches.
      await replicasCaughtUp();
      // each path once before the load (another link): what is measured below is waiting behind
      // the searches, not this process's first redirect, link read and readiness check
      await t.http().get(`/${warm.alias}`).redirects(0).expect(302);
      await t.http().get(`/api/url/${warm.id}`).set(other.auth).expect(200);
      await t.http().get('/health/ready').expect(200);

      const statuses = new Map<number, number>();
      let stop = false;
      const queries: Array<Record<string, string | number>> = [
        { q: 'zq' },
        { q: 'many' },
        { page: 1000 },
        { order: 'click', page: 50 },
      ];
      const client = async (n: number) => {
        for (let i = n; !stop; i++) {
          const res = await listNow(big, queries[i % queries.length]);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          // a client told to come back later does so (Retry-After)
          if (res.status === 429)
            await new Promise((r) => setTimeout(r, Number(res.headers['retry-after']) * 1000));
        }
      };
      let worst = 0;
      const clients = Array.from({ length: 24 }, (_, n) => client(n));
      const timed = async <R>(f: () => Promise<R>): Promise<[R, number]> => {
        const start = performance.now();
        const r = await f();
        return [r, performance.now() - start];
      };
      try {
        await new Promise((r) => setTimeout(r, 300)); // the searches under way
        for (const link of links) {
          const [redirect, redirectMs] = await timed(() =>
            t.http().get(`/${link.alias}`).redirects(0),
          );
          expect(redirect.status).toBe(302);
          expect(redirectMs).toBeLessThan(500);
          const [read, readMs] = await timed(() =>
            t.http().get(`/api/url/${link.id}`).set(other.auth),
          );
          expect(read.status).toBe(200);
          expect(readMs).toBeLessThan(500);
          const [ready, readyMs] = await timed(() => t.http().get('/health/ready'));
          expect(ready.status).toBe(200);
          expect(readyMs).toBeLessThan(500);
          worst = Math.max(worst, redirectMs, readMs, readyMs);
        }
      } finally {
        stop = true;
        await Promise.all(clients);
      }
      // the user's own searches were served (200, or 503 past the time budget) and refused past its share (429)
      expect(statuses.get(200)).toBeGreaterThan(0);
      expect(statuses.get(429)).toBeGreaterThan(0);
      expect(statuses.get(500)).toBeUndefined();
      if (process.env.LISTS_DEBUG) console.log({ worst, statuses });
    }, 120_000);
  });
});
