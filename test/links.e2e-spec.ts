import { createPlan, createUser, DATE_TIME, expectError, TestUser, useSuite } from './support/app';
import {
  addLink,
  dateTimeIn,
  insertCampaign,
  insertChannel,
  insertDomain,
  insertOverlay,
  insertPixel,
  insertSplash,
  linkCount,
  NO_OPTIONS,
  snapshot,
  uniq,
} from './support/links';
import { insertLink, onePage } from './support/resources';
import { BROWSER_UA, EMPTY_STATS, eventually, foldStats, recordVisit } from './support/stats';

const SHORT = /^http:\/\/short\.test\/[A-Za-z0-9]{6,}$/;

describe('links API', () => {
  const { t, user, other } = useSuite({ user: {}, other: {} });

  const add = (u: TestUser, body: unknown) =>
    t
      .http()
      .post('/api/url/add')
      .set(u.auth)
      .send(body as object);
  const update = (u: TestUser, id: number, body: unknown) =>
    t
      .http()
      .put(`/api/url/${id}/update`)
      .set(u.auth)
      .send(body as object);
  const read = (u: TestUser, id: number) => t.http().get(`/api/url/${id}`).set(u.auth);
  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT *, to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS expiry FROM links WHERE id = $1`,
        [id],
      )
    )[0];

  describe('POST /api/url/add', () => {
    it('shortens a URL with a generated alias: {error, id, shorturl}', async () => {
      const u = await createUser(t);
      const res = await add(u, { url: 'https://example.com/a?b=c' }).expect(200);
      expect(res.body).toEqual({
        error: 0,
        id: expect.any(Number),
        shorturl: expect.stringMatching(SHORT),
      });
      const r = await row(res.body.id);
      expect(r).toMatchObject({
        user_id: u.id,
        kind: 'link',
        url: 'https://example.com/a?b=c',
        alias: res.body.shorturl.split('/').pop(),
        type: 'direct',
        domain_id: null,
        password_hash: null,
        expires_at: null,
        campaign_id: null,
        title: '',
        description: '',
      });
    });

    it('generates different aliases', async () => {
      const a = await addLink(t, user, { url: 'https://example.com/1' });
      const b = await addLink(t, user, { url: 'https://example.com/1' });
      expect(a.alias).not.toBe(b.alias);
    });

    it('takes a custom alias and every optional field, all in one go', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const pixelA = await insertPixel(t, u.id);
      const pixelB = await insertPixel(t, u.id, 'vendor10', 'abc.def');
      const campaign = await insertCampaign(t, u.id);
      const channel = await insertChannel(t, u.id);
      const splash = await insertSplash(t, u.id);
      const alias = uniq('Cu_');
      const expiry = dateTimeIn(86_400_000);
      const res = await add(u, {
        url: 'https://example.com/full',
        custom: alias,
        domain: domain.id,
        type: 'splash',
        expiry,
        password: 'open sesame',
        title: 'Full link',
        description: 'All fields',
        pixels: [pixelB, pixelA, pixelB],
        campaign,
        channel,
      }).expect(200);
      expect(res.body).toEqual({
        error: 0,
        id: expect.any(Number),
        shorturl: `${domain.url}/${alias}`,
      });
      const id = res.body.id;
      const r = await row(id);
      expect(r).toMatchObject({
        alias,
        domain_id: domain.id,
        type: 'splash',
        splash_id: splash,
        overlay_id: null,
        campaign_id: campaign,
        expiry,
      });
      expect(r.password_hash).toMatch(/^\$argon2id\$/);
      const pixels = await t.db.query(
        `SELECT pixel_id FROM link_pixels WHERE link_id = $1 ORDER BY pixel_id`,
        [id],
      );
      expect(pixels.map((p: { pixel_id: number }) => p.pixel_id)).toEqual(
        [pixelA, pixelB].sort((a, b) => a - b),
      );
      const items = await t.db.query(
        `SELECT channel_id, user_id, item_type, item_id FROM channel_items WHERE item_id = $1 AND item_type = 'links'`,
        [id],
      );
      expect(items).toEqual([
        { channel_id: channel, user_id: u.id, item_type: 'links', item_id: id },
      ]);

      const details = (await read(u, id).expect(200)).body;
      expect(details).toEqual({
        error: 0,
        id,
        details: {
          id,
          alias,
          shorturl: `${domain.url}/${alias}`,
          longurl: 'https://example.com/full',
          title: 'Full link',
          description: 'All fields',
          clicks: 0,
          uniqueClicks: 0,
          date: expect.stringMatching(DATE_TIME),
          domain: domain.url,
          type: 'splash',
          overlay: null,
          splash,
          expiry,
          password: true,
          pixels: [pixelA, pixelB].sort((a, b) => a - b),
          campaign,
          ...NO_OPTIONS,
          channels: [channel],
        },
        data: EMPTY_STATS,
      });
      expect(JSON.stringify(details)).not.toContain('open sesame');
    });

    it('finds the domain by host name, by URL and case-insensitively', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      for (const ref of [
        domain.host,
        domain.url,
        `${domain.url}/`,
        domain.host.toUpperCase(),
        `http://${domain.host}`,
      ]) {
        const res = await add(u, { url: 'https://example.com/', domain: ref }).expect(200);
        expect(res.body.shorturl.startsWith(`${domain.url}/`)).toBe(true);
        expect((await row(res.body.id)).domain_id).toBe(domain.id);
      }
    });

    it("400 naming domain for someone else's, an unknown or a malformed domain; nothing created", async () => {
      const u = await createUser(t);
      const foreign = await insertDomain(t, other.id);
      for (const domain of [
        foreign.id,
        foreign.host,
        foreign.url,
        999999,
        'nowhere.example',
        'https://x.example/path',
        'ftp://x.example',
        '',
      ]) {
        expectError(await add(u, { url: 'https://example.com/', domain }), 400, /^domain: /);
      }
      expectError(await add(u, { url: 'https://example.com/', domain: true }), 400, /^domain: /);
      expectError(await add(u, { url: 'https://example.com/', domain: 1.5 }), 400, /^domain: /);
      expect(await linkCount(t, u.id)).toBe(0);
    });

    it('type: frame, overlay by id, the newest overlay, and splash without a splash page', async () => {
      const u = await createUser(t);
      expect(
        (await row((await addLink(t, u, { url: 'https://e.com/', type: 'frame' })).id)).type,
      ).toBe('frame');
      expectError(await add(u, { url: 'https://e.com/', type: 'splash' }), 400, /^type: .*splash/);
      expectError(
        await add(u, { url: 'https://e.com/', type: 'overlay' }),
        400,
        /^type: .*overlay/,
      );
      const o1 = await insertOverlay(t, u.id);
      const o2 = await insertOverlay(t, u.id);
      expect(
        await row((await addLink(t, u, { url: 'https://e.com/', type: o1 })).id),
      ).toMatchObject({ type: 'overlay', overlay_id: o1 });
      expect(
        await row((await addLink(t, u, { url: 'https://e.com/', type: 'overlay' })).id),
      ).toMatchObject({ type: 'overlay', overlay_id: o2 });
      const foreign = await insertOverlay(t, other.id);
      const before = await linkCount(t, u.id);
      expectError(await add(u, { url: 'https://e.com/', type: foreign }), 404, /Overlay not found/);
      expectError(await add(u, { url: 'https://e.com/', type: 'popup' }), 400, /^type: /);
      expectError(await add(u, { url: 'https://e.com/', type: 0 }), 400, /^type: /);
      expect(await linkCount(t, u.id)).toBe(before);
    });

    it.each([
      ['url', { url: undefined }],
      ['url', { url: 'ftp://example.com/' }],
      ['url', { url: 'example.com' }],
      ['url', { url: 'https://' }],
      ['url', { url: 'https://exa mple.com/' }],
      ['url', { url: 'https://user:pw@example.com/' }],
      ['url', { url: `https://example.com/${'a'.repeat(2030)}` }],
      ['url', { url: 42 }],
      ['custom', { custom: 'ab' }],
      ['custom', { custom: 'a'.repeat(65) }],
      ['custom', { custom: 'has space' }],
      ['custom', { custom: 'dot.ted' }],
      ['custom', { custom: 'api' }],
      ['custom', { custom: 'Docs' }],
      ['custom', { custom: 'health' }],
      ['custom', { custom: 123456 }],
      ['expiry', { expiry: '2020-01-01 00:00:00' }],
      ['expiry', { expiry: '2031-02-30 10:00:00' }],
      ['expiry', { expiry: 'tomorrow' }],
      ['expiry', { expiry: 1893456000 }],
      ['password', { password: 'x'.repeat(129) }],
      ['password', { password: 12345 }],
      ['password', { password: null }],
      ['title', { title: 't'.repeat(256) }],
      ['title', { title: 5 }],
      ['description', { description: 'd'.repeat(501) }],
      ['pixels', { pixels: 'x' }],
      ['pixels', { pixels: [0] }],
      ['pixels', { pixels: ['1'] }],
      ['pixels', { pixels: Array.from({ length: 51 }, (_, i) => i + 1) }],
      ['campaign', { campaign: '1' }],
      ['campaign', { campaign: 0 }],
      ['channel', { channel: -1 }],
      ['channel', { channel: 1.5 }],
      ['nope', { nope: 1 }],
    ])('400 naming %s for %j; nothing created', async (field, body) => {
      const u = await createUser(t);
      const res = await add(u, { url: 'https://example.com/', ...body });
      expectError(res, 400, new RegExp(`^${field}: `));
      expect(await linkCount(t, u.id)).toBe(0);
    });

    it('409 when the custom alias is taken (by anyone, any case of kind), nothing created', async () => {
      const alias = uniq('taken');
      await addLink(t, other, { url: 'https://example.com/', custom: alias });
      const u = await createUser(t);
      expectError(await add(u, { url: 'https://example.com/', custom: alias }), 409, /^custom: /);
      const qrAlias = uniq('qr');
      await insertLink(t, other.id, { alias: qrAlias, kind: 'qr' });
      expectError(await add(u, { url: 'https://example.com/', custom: qrAlias }), 409, /^custom: /);
      expect(await linkCount(t, u.id)).toBe(0);
      // aliases are case-sensitive: another case is another alias
      await addLink(t, u, { url: 'https://example.com/', custom: alias.toUpperCase() });
    });

    it("404 for someone else's pixel, campaign or channel: all or nothing", async () => {
      const u = await createUser(t);
      const mine = await insertPixel(t, u.id);
      const channel = await insertChannel(t, u.id);
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ pixels: [mine, await insertPixel(t, other.id)] }, /Pixel not found/],
        [{ pixels: [mine, 99999999] }, /Pixel not found/],
        [{ campaign: await insertCampaign(t, other.id), channel }, /Campaign not found/],
        [{ channel: await insertChannel(t, other.id), pixels: [mine] }, /Channel not found/],
      ];
      for (const [fields, message] of cases) {
        expectError(await add(u, { url: 'https://example.com/', ...fields }), 404, message);
      }
      expect(await snapshot(t, u.id)).toEqual({ links: [], pixels: [], items: [] });
    });

    it("403 once the plan's links count is reached (QR links do not count)", async () => {
      const plan = await createPlan(t, { links: 2 });
      const u = await createUser(t, { planId: plan });
      await insertLink(t, u.id, { alias: uniq('q'), kind: 'qr' });
      await addLink(t, u, { url: 'https://example.com/1' });
      await addLink(t, u, { url: 'https://example.com/2' });
      expectError(
        await add(u, { url: 'https://example.com/3' }),
        403,
        /Plan limit reached.*2 links/,
      );
      expect(await linkCount(t, u.id)).toBe(3);
    });

    it('the links limit holds under concurrent creations', async () => {
      const plan = await createPlan(t, { links: 3 });
      const u = await createUser(t, { planId: plan });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => add(u, { url: `https://example.com/${i}` })),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(3);
      expect(results.filter((r) => r.status === 403)).toHaveLength(5);
      expect(await linkCount(t, u.id)).toBe(3);
    });

    it('403 for a custom alias, splash, overlay or pixels when the plan disables them', async () => {
      const off = { enabled: '0' };
      const plan = await createPlan(t, {
        alias: off,
        splash: { enabled: '0', count: '0' },
        overlay: { enabled: '0', count: '0' },
        pixels: { enabled: '0', count: '0' },
      });
      const u = await createUser(t, { planId: plan });
      await insertSplash(t, u.id);
      const overlay = await insertOverlay(t, u.id);
      const pixel = await insertPixel(t, u.id);
      expectError(await add(u, { url: 'https://e.com/', custom: uniq('x') }), 403, /"alias"/);
      expectError(await add(u, { url: 'https://e.com/', type: 'splash' }), 403, /"splash"/);
      expectError(await add(u, { url: 'https://e.com/', type: overlay }), 403, /"overlay"/);
      expectError(await add(u, { url: 'https://e.com/', pixels: [pixel] }), 403, /"pixels"/);
      expect(await linkCount(t, u.id)).toBe(0);
      await addLink(t, u, { url: 'https://e.com/' });
    });

    it('401 without a key', async () => {
      expectError(await t.http().post('/api/url/add').send({ url: 'https://e.com/' }), 401);
    });

    it('stores a non-ASCII target percent-encoded, so it can be sent in a Location header', async () => {
      const { id } = await addLink(t, user, { url: 'https://example.com/größe?q=ü' });
      expect((await row(id)).url).toBe('https://example.com/gr%C3%B6%C3%9Fe?q=%C3%BC');
    });
  });

  describe('GET /api/urls', () => {
    it("lists the caller's links newest first with the documented item and counters", async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const a = await addLink(t, u, {
        url: 'https://example.com/a',
        title: 'A',
        description: 'first',
      });
      const b = await addLink(t, u, { url: 'https://example.com/b', domain: domain.id });
      await insertLink(t, u.id, { alias: uniq('qr'), kind: 'qr' });
      await addLink(t, other, { url: 'https://example.com/other' });
      const res = await t.http().get('/api/urls').set(u.auth).expect(200);
      /** A list item: the link's own fields, and those every link here has. */
      const item = (l: { id: number; alias: string }, fields: object) => ({
        id: l.id,
        alias: l.alias,
        clicks: 0,
        uniqueClicks: 0,
        date: expect.stringMatching(DATE_TIME),
        campaign: null,
        channels: [],
        status: 'public',
        flag: null,
        ...fields,
      });
      expect(res.body).toEqual(
        onePage('urls', [
          item(b, {
            shorturl: `${domain.url}/${b.alias}`,
            longurl: 'https://example.com/b',
            title: '',
            description: '',
            domain: domain.host,
          }),
          item(a, {
            shorturl: `http://short.test/${a.alias}`,
            longurl: 'https://example.com/a',
            title: 'A',
            description: 'first',
            domain: null,
          }),
        ]),
      );
    });

    it('paginates', async () => {
      const u = await createUser(t);
      const ids = [];
      for (let i = 0; i < 3; i++)
        ids.push((await addLink(t, u, { url: `https://example.com/${i}` })).id);
      const res = await t.http().get('/api/urls?limit=2&page=2').set(u.auth).expect(200);
      expect(res.body.data).toMatchObject({
        result: 3,
        perpage: 2,
        currentpage: 2,
        nextpage: 0,
        maxpage: 2,
      });
      expect(res.body.data.urls.map((l: { id: number }) => l.id)).toEqual([ids[0]]);
      const first = await t.http().get('/api/urls?limit=2').set(u.auth).expect(200);
      expect(first.body.data).toMatchObject({ currentpage: 1, nextpage: 2 });
      expect(first.body.data.urls.map((l: { id: number }) => l.id)).toEqual([ids[2], ids[1]]);
    });

    it('q searches url, title and alias literally (LIKE wildcards escaped); short is an exact alias', async () => {
      const u = await createUser(t);
      const byUrl = await addLink(t, u, { url: 'https://needle.example/x' });
      const byTitle = await addLink(t, u, {
        url: 'https://example.com/1',
        title: 'The NEEDLE title',
      });
      const alias = uniq('needle');
      const byAlias = await addLink(t, u, { url: 'https://example.com/2', custom: alias });
      const percent = await addLink(t, u, {
        url: 'https://example.com/100%25off',
        title: '50% off',
      });
      await addLink(t, u, { url: 'https://example.com/3', title: 'hay' });
      const ids = async (qs: string) =>
        (await t.http().get(`/api/urls?${qs}`).set(u.auth).expect(200)).body.data.urls.map(
          (l: { id: number }) => l.id,
        );
      expect(await ids('q=needle')).toEqual([byAlias.id, byTitle.id, byUrl.id]);
      expect(await ids('q=%25')).toEqual([percent.id]);
      expect(await ids('q=_')).toEqual([]);
      expect(await ids(`short=${alias}`)).toEqual([byAlias.id]);
      expect(await ids(`short=${alias.toUpperCase()}`)).toEqual([]);
      expect(await ids('q=needle&short=' + alias)).toEqual([byAlias.id]);
    });

    it('order=click puts the most visited first (ties newest first)', async () => {
      const u = await createUser(t);
      const a = await addLink(t, u, { url: 'https://example.com/a' });
      const b = await addLink(t, u, { url: 'https://example.com/b' });
      const c = await addLink(t, u, { url: 'https://example.com/c' });
      for (let i = 0; i < 3; i++)
        await recordVisit(t, { linkId: a.id, userId: u.id, ip: `10.1.0.${i + 1}` });
      await recordVisit(t, { linkId: c.id, userId: u.id });
      await foldStats(t);
      const res = await t.http().get('/api/urls?order=click').set(u.auth).expect(200);
      expect(
        res.body.data.urls.map((l: { id: number; clicks: number }) => [l.id, l.clicks]),
      ).toEqual([
        [a.id, 3],
        [c.id, 1],
        [b.id, 0],
      ]);
      expect(res.body.data.urls[0].uniqueClicks).toBe(3);
      const byDate = await t.http().get('/api/urls?order=date').set(u.auth).expect(200);
      expect(byDate.body.data.urls.map((l: { id: number }) => l.id)).toEqual([c.id, b.id, a.id]);
    });

    it('shows the clicks and unique visitors not yet folded, beside the folded ones, on every link of the page', async () => {
      const u = await createUser(t);
      const a = await addLink(t, u, { url: 'https://example.com/pa' });
      const b = await addLink(t, u, { url: 'https://example.com/pb' });
      const c = await addLink(t, u, { url: 'https://example.com/pc' });
      for (const ip of ['10.7.0.1', '10.7.0.2', '10.7.0.1'])
        await recordVisit(t, { linkId: a.id, userId: u.id, ip });
      await foldStats(t);
      // a's day partly folded (2 visitors), then one new visitor and one seen before; b only pending
      for (const ip of ['10.7.0.3', '10.7.0.2'])
        await recordVisit(t, { linkId: a.id, userId: u.id, ip });
      for (const ip of ['10.7.1.1', '10.7.1.2'])
        await recordVisit(t, { linkId: b.id, userId: u.id, ip });
      const res = await t.http().get('/api/urls').set(u.auth).expect(200);
      expect(
        res.body.data.urls.map((l: { id: number; clicks: number; uniqueClicks: number }) => [
          l.id,
          l.clicks,
          l.uniqueClicks,
        ]),
      ).toEqual([
        [c.id, 0, 0],
        [b.id, 2, 2],
        [a.id, 5, 3],
      ]);
    });

    it('400 for a bad order, limit, page or q', async () => {
      expectError(await t.http().get('/api/urls?order=views').set(user.auth), 400, /^order: /);
      expectError(await t.http().get('/api/urls?limit=0').set(user.auth), 400, /^limit: /);
      expectError(await t.http().get('/api/urls?page=x').set(user.auth), 400, /^page: /);
      expectError(
        await t
          .http()
          .get(`/api/urls?q=${'q'.repeat(256)}`)
          .set(user.auth),
        400,
        /^q: /,
      );
      expectError(await t.http().get('/api/urls?q=a&q=b').set(user.auth), 400, /^q: /);
    });
  });

  describe('GET /api/url/:id', () => {
    it('returns the details of a plain link and empty statistics', async () => {
      const u = await createUser(t);
      const l = await addLink(t, u, { url: 'https://example.com/plain' });
      expect((await read(u, l.id).expect(200)).body).toEqual({
        error: 0,
        id: l.id,
        details: {
          id: l.id,
          alias: l.alias,
          shorturl: l.shorturl,
          longurl: 'https://example.com/plain',
          title: '',
          description: '',
          clicks: 0,
          uniqueClicks: 0,
          date: expect.stringMatching(DATE_TIME),
          domain: null,
          type: 'direct',
          overlay: null,
          splash: null,
          expiry: null,
          password: false,
          pixels: [],
          campaign: null,
          ...NO_OPTIONS,
        },
        data: EMPTY_STATS,
      });
    });

    it("404 for an unknown id, someone else's link and a QR code's link; 400 for a bad id", async () => {
      const theirs = await addLink(t, other, { url: 'https://example.com/' });
      const { id: qr } = await insertLink(t, user.id, { alias: uniq('qr'), kind: 'qr' });
      const a = expectError(await read(user, theirs.id), 404, /Link not found/);
      const b = expectError(await read(user, 99999999), 404);
      expect(a).toBe(b);
      expectError(await read(user, qr), 404);
      expectError(await t.http().get('/api/url/abc').set(user.auth), 400, /^id: /);
    });

    it('a browser visit through the redirector shows up in the statistics', async () => {
      const u = await createUser(t);
      const l = await addLink(t, u, { url: 'https://example.com/visited' });
      await t
        .http()
        .get(`/${l.alias}`)
        .set('Host', 'short.test')
        .set('User-Agent', BROWSER_UA)
        .set('X-Forwarded-For', '8.8.8.8')
        .expect(302);
      await eventually(async () => (await read(u, l.id)).body.data.clicks === 1);
      const expected = {
        clicks: 1,
        uniqueClicks: 1,
        topBrowsers: { Chrome: '1' },
        topOs: { Windows: '1' },
      };
      expect((await read(u, l.id)).body.data).toMatchObject(expected);
      expect((await read(u, l.id)).body.details).toMatchObject({ clicks: 1, uniqueClicks: 1 });
      await foldStats(t);
      expect((await read(u, l.id)).body.data).toMatchObject(expected);
      const list = await t.http().get('/api/urls').set(u.auth).expect(200);
      expect(list.body.data.urls[0]).toMatchObject({ id: l.id, clicks: 1, uniqueClicks: 1 });
    });
  });

  describe('PUT /api/url/:id/update', () => {
    it('changes only what is sent: {error, id, short, shorturl}', async () => {
      const u = await createUser(t);
      const l = await addLink(t, u, {
        url: 'https://example.com/old',
        title: 'Old',
        description: 'keep me',
      });
      const res = await update(u, l.id, { url: 'https://example.com/new', title: 'New' }).expect(
        200,
      );
      expect(res.body).toEqual({ error: 0, id: l.id, short: l.alias, shorturl: l.shorturl });
      expect(await row(l.id)).toMatchObject({
        url: 'https://example.com/new',
        title: 'New',
        description: 'keep me',
        alias: l.alias,
      });
    });

    it('changes the alias (409 when taken, 400 when reserved, same alias is fine)', async () => {
      const u = await createUser(t);
      const l = await addLink(t, u, { url: 'https://example.com/' });
      const alias = uniq('renamed');
      const res = await update(u, l.id, { custom: alias }).expect(200);
      expect(res.body).toEqual({
        error: 0,
        id: l.id,
        short: alias,
        shorturl: `http://short.test/${alias}`,
      });
      await update(u, l.id, { custom: alias }).expect(200);
      const taken = await addLink(t, other, { url: 'https://example.com/' });
      expectError(await update(u, l.id, { custom: taken.alias, title: 'x' }), 409, /^custom: /);
      expectError(await update(u, l.id, { custom: 'admin' }), 400, /^custom: .*reserved/);
      expect(await row(l.id)).toMatchObject({ alias, title: '' });
    });

    it('refuses every alias the service would not serve (Nest paths such as /health2, /docs1), on add and update', async () => {
      const u = await createUser(t);
      const l = await addLink(t, u, { url: 'https://example.com/' });
      for (const custom of ['health2', 'healthy', 'docs1', 'docs-json2', 'api', 'Health2']) {
        expectError(
          await t
            .http()
            .post('/api/url/add')
            .set(u.auth)
            .send({ url: 'https://example.com/', custom }),
          400,
          /^custom: is reserved$/,
        );
        expectError(await update(u, l.id, { custom }), 400, /^custom: is reserved$/);
      }
      // why: those paths never reach the short-link handler
      expect((await t.http().get('/health2').set('Host', 'short.test').redirects(0)).status).toBe(
        404,
      );
      // a look-alike the front does serve is fine
      const custom = `apix${uniq('').slice(0, 6)}`;
      await addLink(t, u, { url: 'https://example.com/apix', custom });
      const served = await t.http().get(`/${custom}`).set('Host', 'short.test').redirects(0);
      expect(served.status).toBe(302);
    });

    it('removes the password with "", the expiry, domain and campaign with null; replaces pixels; adds a channel', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const [p1, p2, p3] = [
        await insertPixel(t, u.id),
        await insertPixel(t, u.id),
        await insertPixel(t, u.id),
      ];
      const campaign = await insertCampaign(t, u.id);
      const [ch1, ch2] = [await insertChannel(t, u.id), await insertChannel(t, u.id)];
      const l = await addLink(t, u, {
        url: 'https://example.com/',
        password: 'secret',
        expiry: dateTimeIn(3_600_000),
        domain: domain.host,
        campaign,
        pixels: [p1, p2],
        channel: ch1,
      });
      await update(u, l.id, { pixels: [p3, p2] }).expect(200);
      expect((await read(u, l.id)).body.details.pixels).toEqual([p2, p3]);
      const res = await update(u, l.id, {
        password: '',
        expiry: null,
        domain: null,
        campaign: null,
        pixels: [],
        channel: ch2,
      }).expect(200);
      expect(res.body.shorturl).toBe(`http://short.test/${l.alias}`);
      expect((await read(u, l.id)).body.details).toMatchObject({
        password: false,
        expiry: null,
        domain: null,
        campaign: null,
        pixels: [],
      });
      const items = await t.db.query(
        `SELECT channel_id FROM channel_items WHERE item_type = 'links' AND item_id = $1 ORDER BY channel_id`,
        [l.id],
      );
      expect(items.map((i: { channel_id: number }) => i.channel_id)).toEqual([ch1, ch2]);
      await update(u, l.id, { channel: ch2 }).expect(200);
      const newExpiry = dateTimeIn(7_200_000);
      await update(u, l.id, { expiry: newExpiry, password: 'again', domain: domain.id }).expect(
        200,
      );
      expect((await read(u, l.id)).body.details).toMatchObject({
        expiry: newExpiry,
        password: true,
        domain: domain.url,
      });
    });

    it('changes the type; direct clears the overlay', async () => {
      const u = await createUser(t);
      const overlay = await insertOverlay(t, u.id);
      const l = await addLink(t, u, { url: 'https://example.com/', type: overlay });
      expect((await read(u, l.id)).body.details).toMatchObject({ type: 'overlay', overlay });
      await update(u, l.id, { type: 'direct' }).expect(200);
      expect((await read(u, l.id)).body.details).toMatchObject({ type: 'direct', overlay: null });
    });

    it('400 for an empty body or a bad field, 404 for a foreign or unknown link; nothing changes', async () => {
      const u = await createUser(t);
      const pixel = await insertPixel(t, u.id);
      const l = await addLink(t, u, { url: 'https://example.com/', pixels: [pixel], title: 'T' });
      const before = await snapshot(t, u.id);
      expectError(await update(u, l.id, {}), 400, /at least one field/);
      expectError(await update(u, l.id, { url: 'nope', title: 'changed' }), 400, /^url: /);
      expectError(
        await update(u, l.id, { expiry: '2001-01-01 00:00:00', title: 'changed' }),
        400,
        /^expiry: /,
      );
      expectError(await update(u, l.id, { title: null }), 400, /^title: /);
      expectError(
        await update(u, l.id, { domain: 'other.example', title: 'changed' }),
        400,
        /^domain: /,
      );
      expectError(
        await update(u, l.id, { pixels: [await insertPixel(t, other.id)], title: 'changed' }),
        404,
        /Pixel/,
      );
      expectError(
        await update(u, l.id, { campaign: await insertCampaign(t, other.id), pixels: [] }),
        404,
        /Campaign/,
      );
      expectError(await update(u, l.id, { unknown: 1 }), 400, /^unknown: unknown field/);
      expect(await snapshot(t, u.id)).toEqual(before);
      const theirs = await addLink(t, other, { url: 'https://example.com/' });
      expectError(await update(u, theirs.id, { title: 'mine now' }), 404, /Link not found/);
      expectError(await update(u, 99999999, { title: 'x' }), 404, /Link not found/);
      expect((await row(theirs.id)).title).toBe('');
    });
  });

  describe('DELETE /api/url/:id/delete', () => {
    it('deletes the link, its pixels and its channel assignments', async () => {
      const u = await createUser(t);
      const channel = await insertChannel(t, u.id);
      const l = await addLink(t, u, {
        url: 'https://example.com/',
        pixels: [await insertPixel(t, u.id)],
        channel,
      });
      const keep = await addLink(t, u, { url: 'https://example.com/keep', channel });
      const res = await t.http().delete(`/api/url/${l.id}/delete`).set(u.auth).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect(await row(l.id)).toBeUndefined();
      expect(await t.db.query(`SELECT 1 FROM link_pixels WHERE link_id = $1`, [l.id])).toEqual([]);
      const items = await t.db.query(`SELECT item_id FROM channel_items WHERE channel_id = $1`, [
        channel,
      ]);
      expect(items).toEqual([{ item_id: keep.id }]);
      expectError(await t.http().delete(`/api/url/${l.id}/delete`).set(u.auth), 404);
    });

    it("404 for someone else's link or a QR code's link; nothing deleted", async () => {
      const theirs = await addLink(t, other, { url: 'https://example.com/' });
      const { id: qr } = await insertLink(t, user.id, { alias: uniq('qr'), kind: 'qr' });
      expectError(
        await t.http().delete(`/api/url/${theirs.id}/delete`).set(user.auth),
        404,
        /Link not found/,
      );
      expectError(await t.http().delete(`/api/url/${qr}/delete`).set(user.auth), 404);
      expect(await row(theirs.id)).toBeDefined();
      expect(await row(qr)).toBeDefined();
    });
  });

  it('documents every link route in OpenAPI', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    for (const [path, method] of [
      ['/api/url/add', 'post'],
      ['/api/urls', 'get'],
      ['/api/url/{id}', 'get'],
      ['/api/url/{id}/update', 'put'],
      ['/api/url/{id}/delete', 'delete'],
    ]) {
      expect(doc.paths[path]?.[method]).toBeDefined();
    }
    expect(
      doc.paths['/api/url/add'].post.requestBody.content['application/json'].schema,
    ).toBeDefined();
  });

  describe('PUT /api/admin/url/:id/disable | enable', () => {
    it('disables and enables a cached link at once; 404 for an unknown id', async () => {
      const admin = await createUser(t, { admin: true });
      const u = await createUser(t);
      const l = await addLink(t, u, { url: 'https://example.com/disable-me' });
      const visit = () => t.http().get(`/${l.alias}`).set('Host', 'short.test');
      expect((await visit()).status).toBe(302); // now in the link cache
      await t.http().put(`/api/admin/url/${l.id}/disable`).set(admin.auth).expect(200);
      expect((await visit()).status).toBe(451);
      expect((await read(u, l.id).expect(200)).body.details.disabled).toBe(true);
      await t.http().put(`/api/admin/url/${l.id}/enable`).set(admin.auth).expect(200);
      expect((await visit()).status).toBe(302);
      for (const action of ['disable', 'enable'])
        expectError(
          await t.http().put(`/api/admin/url/2147483646/${action}`).set(admin.auth),
          404,
          /Link not found/,
        );
    });
  });
});
