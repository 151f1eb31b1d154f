import { CacheBus, REPEAT_INVALIDATION_MS } from '@app/redis';

import {
  createPlan,
  createTestApp,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { addLink } from './support/links';
import { countOwned, expectDocumented, expectPagination } from './support/resources';
import { BROWSER_UA, eventually } from './support/stats';

const MAIN = 'short.test';

describe('CTA overlays and custom splash pages', () => {
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
    for (const kind of ['overlay', 'splash']) {
      expectError(await t.http().get(`/api/${kind}`), 401);
      expectError(await t.http().get(`/api/${kind}/1`), 401);
      expectError(await t.http().post(`/api/${kind}/add`).send({ name: 'n' }), 401);
      expectError(await t.http().put(`/api/${kind}/1/update`).send({ name: 'n' }), 401);
      expectError(await t.http().delete(`/api/${kind}/1/delete`), 401);
    }
  });

  it('documents every route in the OpenAPI document, with its envelope and errors', async () => {
    await expectDocumented(
      t,
      [
        ['/api/overlay', 'get'],
        ['/api/overlay/{id}', 'get'],
        ['/api/overlay/add', 'post'],
        ['/api/overlay/{id}/update', 'put'],
        ['/api/overlay/{id}/delete', 'delete'],
        ['/api/splash', 'get'],
        ['/api/splash/{id}', 'get'],
        ['/api/splash/add', 'post'],
        ['/api/splash/{id}/update', 'put'],
        ['/api/splash/{id}/delete', 'delete'],
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

  const visit = (path: string, app: TestApp = t) =>
    app.http().get(path).set('Host', MAIN).set('User-Agent', BROWSER_UA).redirects(0);
  const linkDetails = async (u: TestUser, id: number) =>
    (await t.http().get(`/api/url/${id}`).set(u.auth).expect(200)).body.details;
  /** A user on a plan without overlay and splash counts (the free plan allows one of each). */
  let unlimitedPlan: number;
  const unlimitedUser = async () => {
    unlimitedPlan ??= await createPlan(t, {
      overlay: { enabled: '1', count: '0' },
      splash: { enabled: '1', count: '0' },
    });
    return createUser(t, { planId: unlimitedPlan });
  };

  /** The routes of one kind of page (`overlay`, `splash`), called with a user's key. */
  const routes = (path: 'overlay' | 'splash') => ({
    add: (u: TestUser, body: object) => t.http().post(`/api/${path}/add`).set(u.auth).send(body),
    get: (u: TestUser, id: number) => t.http().get(`/api/${path}/${id}`).set(u.auth),
    update: (u: TestUser, id: number, body: object) =>
      t.http().put(`/api/${path}/${id}/update`).set(u.auth).send(body),
    remove: (u: TestUser, id: number) => t.http().delete(`/api/${path}/${id}/delete`).set(u.auth),
  });

  const OVERLAY_FULL = {
    type: 'contact',
    name: 'Contact us',
    message: 'Questions? Write to us.',
    button: 'Write',
    link: 'https://www.example.com/contact',
    bgcolor: '#112233',
    textcolor: '#FFFFFF',
    buttoncolor: '#ff8800',
    position: 'tr',
  };
  const SPLASH_FULL = {
    name: 'Collection',
    title: 'Our new collection',
    message: 'Have a look before you go on.',
    image: 'https://cdn.example/collection.jpg',
    link: 'https://shop.example/collection',
    countdown: 10,
    button: 'Take me there',
  };

  type Body = Record<string, unknown>;
  /** What the tests every kind of page passes the same way need to know about it. */
  interface PageKind {
    path: 'overlay' | 'splash';
    table: string;
    listKey: string;
    notFound: RegExp;
    /** A body with every field, and the list entry of the page it adds. */
    full: Body;
    listEntry: Body;
    /** A body with only the required fields. */
    named: (name: string) => Body;
    /** A row inserted without the API. */
    insert: (u: TestUser, name: string) => Promise<number>;
    /** What a page added with only the required fields holds besides them. */
    defaults: Body;
    /** Add bodies refused with 400, and the message each gets. */
    bad: Array<[Body, RegExp]>;
    /** Update bodies that each change one field, then update bodies refused with 400. */
    steps: Body[];
    badUpdates: Array<[Body, RegExp]>;
    /** A page on a visit: what it is added with and shows, then a change and what shows after it. */
    onVisit: {
      body: Body;
      /** The `type` of a link showing the page. */
      linkType: (id: number) => number | string;
      target: string;
      shows: string[];
      headers: Record<string, string>;
      change: Body;
      showsAfterChange: string[];
      hiddenAfterChange: string[];
    };
  }
  const KINDS: PageKind[] = [
    {
      path: 'overlay',
      table: 'overlays',
      listKey: 'cta',
      notFound: /^Overlay not found$/,
      full: OVERLAY_FULL,
      listEntry: { type: 'contact', name: 'Contact us' },
      named: (name) => ({ type: 'message', name }),
      insert: (u, name) => insertOverlay(u, 'message', name),
      defaults: {
        message: '',
        button: '',
        link: '',
        bgcolor: '#ffffff',
        textcolor: '#000000',
        buttoncolor: '#0055ff',
        position: 'bl',
      },
      bad: [
        [{ name: 'n' }, /^type: required \(must be one of message, contact\)$/],
        [{ type: 'banner', name: 'n' }, /^type: must be one of message, contact/],
        [{ type: 'message' }, /^name: /],
        [{ type: 'message', name: '' }, /^name: must be 1 to 100 characters/],
        [{ type: 'message', name: 'n'.repeat(101) }, /^name: /],
        [{ type: 'message', name: 'n', message: 'm'.repeat(1001) }, /^message: /],
        [{ type: 'message', name: 'n', message: 5 }, /^message: /],
        [{ type: 'message', name: 'n', button: 'b'.repeat(101) }, /^button: /],
        [{ type: 'message', name: 'n', link: 'ftp://x.example/' }, /^link: /],
        [{ type: 'message', name: 'n', link: 'javascript:alert(1)' }, /^link: /],
        [{ type: 'message', name: 'n', link: null }, /^link: /],
        [{ type: 'message', name: 'n', bgcolor: 'red' }, /^bgcolor: must be a HEX colour/],
        [{ type: 'message', name: 'n', textcolor: '#12345' }, /^textcolor: /],
        [{ type: 'message', name: 'n', buttoncolor: 255 }, /^buttoncolor: /],
        [
          { type: 'message', name: 'n', position: 'center' },
          /^position: must be one of bl, br, tl, tr/,
        ],
        [{ type: 'message', name: 'n', shadow: true }, /^shadow: unknown field/],
      ],
      steps: [
        { type: 'message' },
        { name: 'Renamed' },
        { message: '' },
        { button: 'Go' },
        { link: '' },
        { bgcolor: '#000000' },
        { textcolor: '#123456' },
        { buttoncolor: '#abcdef' },
        { position: 'bl' },
      ],
      badUpdates: [
        [{}, /at least one field/],
        [{ name: null }, /^name: /],
        [{ bgcolor: 'blue' }, /^bgcolor: /],
      ],
      onVisit: {
        body: {
          type: 'message',
          name: 'cta',
          message: 'Join our list',
          button: 'Join',
          link: 'https://list.example/join',
          bgcolor: '#ffeeaa',
          position: 'tl',
        },
        /** A link shows an overlay by its id as the link's `type`. */
        linkType: (id) => id,
        target: 'https://target.example/page',
        shows: [
          '<iframe class="target" src="https://target.example/page"',
          '<p>Join our list</p>',
          'href="https://list.example/join"',
          '>Join</a>',
          'background:#ffeeaa',
          'left:1rem;top:1rem',
        ],
        headers: {},
        change: { message: 'Changed message' },
        showsAfterChange: ['<p>Changed message</p>'],
        hiddenAfterChange: [],
      },
    },
    {
      path: 'splash',
      table: 'splash_pages',
      listKey: 'splash',
      notFound: /^Splash page not found$/,
      full: SPLASH_FULL,
      listEntry: { name: 'Collection' },
      named: (name) => ({ name }),
      insert: (u, name) => insertSplash(u, name),
      defaults: {
        title: '',
        message: '',
        image: '',
        link: '',
        countdown: 5,
        button: 'Continue',
      },
      bad: [
        [{}, /^name: /],
        [{ name: '' }, /^name: must be 1 to 100 characters/],
        [{ name: 'n'.repeat(101) }, /^name: /],
        [{ name: 'n', title: 't'.repeat(201) }, /^title: must be at most 200/],
        [{ name: 'n', message: 'm'.repeat(2001) }, /^message: /],
        [{ name: 'n', image: 'cat.jpg' }, /^image: /],
        [{ name: 'n', image: 'data:image/png;base64,AAAA' }, /^image: /],
        [{ name: 'n', link: 'javascript:alert(1)' }, /^link: /],
        [{ name: 'n', countdown: -1 }, /^countdown: must be an integer from 0 to 600/],
        [{ name: 'n', countdown: 601 }, /^countdown: /],
        [{ name: 'n', countdown: 1.5 }, /^countdown: /],
        [{ name: 'n', countdown: '5' }, /^countdown: /],
        [{ name: 'n', button: '' }, /^button: must be 1 to 100 characters/],
        [{ name: 'n', button: 'b'.repeat(101) }, /^button: /],
        [{ name: 'n', video: 'x' }, /^video: unknown field/],
      ],
      steps: [
        { name: 'Renamed' },
        { title: '' },
        { message: 'New text' },
        { image: '' },
        { link: 'https://other.example/' },
        { countdown: 0 },
        { button: 'Go on' },
      ],
      badUpdates: [
        [{}, /at least one field/],
        [{ countdown: 700 }, /^countdown: /],
      ],
      onVisit: {
        body: SPLASH_FULL,
        /** A link of type splash shows the owner's splash page. */
        linkType: () => 'splash',
        target: 'https://target.example/splash',
        shows: [
          '<h1>Our new collection</h1>',
          '<img class="hero" src="https://cdn.example/collection.jpg"',
          '<p>Have a look before you go on.</p>',
          'href="https://shop.example/collection"',
          'id="go" href="https://target.example/splash"',
          '>Take me there</a>',
          'data-seconds="10"',
        ],
        headers: { 'content-security-policy': 'img-src https://cdn.example' },
        change: { title: 'Changed title', countdown: 0 },
        showsAfterChange: ['<h1>Changed title</h1>'],
        hiddenAfterChange: ['data-seconds'],
      },
    },
  ];

  describe.each(KINDS)('/api/$path: get one, add, update, delete', (kind) => {
    const { add, get, update, remove } = routes(kind.path);

    it('adds a page with every field; GET echoes them; the list entry keeps its v3 shape', async () => {
      const u = await createUser(t);
      const res = await add(u, kind.full).expect(200);
      expect(res.body).toEqual({ error: 0, id: expect.any(Number) });
      expect((await get(u, res.body.id).expect(200)).body).toEqual({
        error: 0,
        data: { id: res.body.id, ...kind.full, date: expect.stringMatching(DATE_TIME) },
      });
      const list = (await t.http().get(`/api/${kind.path}`).set(u.auth).expect(200)).body.data;
      expect(list[kind.listKey]).toEqual([
        { id: res.body.id, ...kind.listEntry, date: expect.stringMatching(DATE_TIME) },
      ]);
    });

    it('defaults for the fields left out', async () => {
      const u = await createUser(t);
      const bare = kind.named('Bare');
      const { id } = (await add(u, bare).expect(200)).body;
      expect((await get(u, id)).body.data).toEqual({
        id,
        ...bare,
        ...kind.defaults,
        date: expect.stringMatching(DATE_TIME),
      });
    });

    it('400 naming the field, for each field; nothing created', async () => {
      const u = await createUser(t);
      for (const [body, message] of kind.bad) expectError(await add(u, body), 400, message);
      expect(await countOwned(t, kind.table, u.id)).toBe(0);
    });

    it("403 past the plan's count (the free plan allows one), and when the plan has the kind disabled", async () => {
      const u = await createUser(t);
      await add(u, kind.named('one')).expect(200);
      expectError(
        await add(u, kind.named('two')),
        403,
        new RegExp(`^Plan limit reached: your plan allows 1 ${kind.path}$`),
      );
      const off = await createPlan(t, { [kind.path]: { enabled: '0', count: '0' } });
      const v = await createUser(t, { planId: off });
      expectError(await add(v, kind.named('x')), 403, new RegExp(`"${kind.path}"`));
      expect(await countOwned(t, kind.table, u.id)).toBe(1);
      expect(await countOwned(t, kind.table, v.id)).toBe(0);
    });

    it('updates only the fields sent, each one', async () => {
      const u = await createUser(t);
      const { id } = (await add(u, kind.full).expect(200)).body;
      let expected = (await get(u, id)).body.data;
      for (const body of kind.steps) {
        expect((await update(u, id, body).expect(200)).body).toEqual({
          error: 0,
          message: expect.any(String),
        });
        expected = { ...expected, ...body };
        expect((await get(u, id)).body.data).toEqual(expected);
      }
      for (const [body, message] of kind.badUpdates)
        expectError(await update(u, id, body), 400, message);
      expect((await get(u, id)).body.data).toEqual(expected);
    });

    it("404 for another user's page on every route; nothing changes", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const theirs = await kind.insert(other, 'theirs');
      expectError(await get(u, theirs), 404, kind.notFound);
      expectError(await update(u, theirs, { name: 'pwned' }), 404, kind.notFound);
      expectError(await remove(u, theirs), 404, kind.notFound);
      expectError(await get(u, 2147483000), 404, kind.notFound);
      expectError(await t.http().get(`/api/${kind.path}/abc`).set(u.auth), 400, /^id: /);
      expect((await get(other, theirs)).body.data.name).toBe('theirs');
    });

    it('created through the API and shown on a real redirect; changes show at once; deleting it makes the link direct', async () => {
      const shown = kind.onVisit;
      const u = await createUser(t);
      const { id } = (await add(u, shown.body).expect(200)).body;
      const link = await addLink(t, u, { url: shown.target, type: shown.linkType(id) });
      let page = await visit(`/${link.alias}`);
      expect(page.status).toBe(200);
      for (const text of shown.shows) expect(page.text).toContain(text);
      for (const [name, value] of Object.entries(shown.headers))
        expect(page.headers[name]).toContain(value);

      await update(u, id, shown.change).expect(200);
      page = await visit(`/${link.alias}`);
      for (const text of shown.showsAfterChange) expect(page.text).toContain(text);
      for (const text of shown.hiddenAfterChange) expect(page.text).not.toContain(text);

      await remove(u, id).expect(200);
      expectError(await get(u, id), 404);
      const res = await visit(`/${link.alias}`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(shown.target);
      expect(await linkDetails(u, link.id)).toMatchObject({ type: 'direct', [kind.path]: null });
    });
  });

  describe('CTA overlays', () => {
    const { add } = routes('overlay');

    it('admins are not limited by a plan with overlays disabled', async () => {
      const off = await createPlan(t, { overlay: { enabled: '0', count: '0' } });
      const admin = await createUser(t, { admin: true, planId: off });
      await add(admin, { type: 'message', name: 'admins are not limited' }).expect(200);
    });
  });

  describe('custom splash pages', () => {
    const { add } = routes('splash');

    it('a plan without a splash count allows many', async () => {
      const w = await unlimitedUser();
      for (const name of ['a', 'b', 'c']) await add(w, { name }).expect(200);
    });

    it('concurrent adds cannot pass the plan count', async () => {
      const u = await createUser(t);
      const results = await Promise.all(
        [1, 2, 3, 4].map((n) => add(u, { name: `race ${n}` }).then((r) => r.status)),
      );
      expect(results.sort()).toEqual([200, 403, 403, 403]);
      expect(await countOwned(t, 'splash_pages', u.id)).toBe(1);
    });

    it('escapes every field on the page', async () => {
      const u = await createUser(t);
      const x = '<script>alert(1)</script>';
      await add(u, {
        name: x,
        title: x,
        message: x,
        button: x,
        link: `https://e.example/"${x}`,
      }).expect(200);
      const link = await addLink(t, u, { url: 'https://target.example/', type: 'splash' });
      const page = await visit(`/${link.alias}`);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });
  });

  it('a second api instance stops showing a deleted overlay or splash page: its links are direct there too', async () => {
    const t2 = await createTestApp();
    try {
      const u = await unlimitedUser();
      const overlay = (
        await t
          .http()
          .post('/api/overlay/add')
          .set(u.auth)
          .send({ type: 'message', name: 'o', message: 'replicated overlay' })
          .expect(200)
      ).body.id;
      const splash = (
        await t
          .http()
          .post('/api/splash/add')
          .set(u.auth)
          .send({ name: 's', title: 'replicated splash' })
          .expect(200)
      ).body.id;
      const a = await addLink(t, u, { url: 'https://a.example/', type: overlay });
      const b = await addLink(t, u, { url: 'https://b.example/', type: 'splash' });
      await eventually(async () => t2.app.get(CacheBus).live);
      // creation's own invalidation is repeated once, REPEAT_INVALIDATION_MS later: let it pass
      await new Promise((r) => setTimeout(r, REPEAT_INVALIDATION_MS + 200));
      expect((await visit(`/${a.alias}`, t2)).text).toContain('replicated overlay');
      expect((await visit(`/${b.alias}`, t2)).text).toContain('replicated splash');
      // t2 now answers from its own memory: a change behind its back (SQL, Redis copy gone) is not seen
      await t.db.query(`UPDATE overlays SET message = 'sneaky' WHERE id = $1`, [overlay]);
      await t.redis.client.del(t.redis.key('link', a.alias));
      expect((await visit(`/${a.alias}`, t2)).text).toContain('replicated overlay');
      await t.http().delete(`/api/overlay/${overlay}/delete`).set(u.auth).expect(200);
      await t.http().delete(`/api/splash/${splash}/delete`).set(u.auth).expect(200);
      await eventually(async () => (await visit(`/${a.alias}`, t2)).status === 302, 3000, 20);
      await eventually(async () => (await visit(`/${b.alias}`, t2)).status === 302, 3000, 20);
      expect((await visit(`/${b.alias}`, t2)).headers.location).toBe('https://b.example/');
    } finally {
      await t2.close();
    }
  });
});
