import request from 'supertest';

import { CacheBus, REPEAT_INVALIDATION_MS } from '@app/redis';

import { cspHash } from '../apps/api/src/public/html';
import {
  createPlan,
  createUser,
  DATE_TIME,
  expectError,
  expectHtmlHeaders,
  TestUser,
  useSuite,
  withTestApp,
} from './support/app';
import { addLink, insertDomain } from './support/links';
import { apiRoutes, countOwned, insertLink, resourceApi, uniq } from './support/resources';
import { BROWSER_UA, EMPTY_STATS, eventually, readStats } from './support/stats';

const MAIN = 'short.test';
const BASE = 'http://short.test';
const XSS = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>&amp;`;
const ESCAPED_XSS =
  '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;';

/** The headers and CSP every public HTML page carries; every inline block allowed by its hash. */
function expectHtmlPage(res: request.Response, status: number): string {
  const csp = expectHtmlHeaders(res, status);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(csp).toContain("form-action 'none'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|script-src/);
  for (const [, body] of res.text.matchAll(/<style>([\s\S]*?)<\/style>/g))
    expect(csp).toContain(cspHash(body));
  // (payloads printed as text are taken out first: they are meant to be there, escaped)
  expect(res.text.replaceAll(ESCAPED_XSS, '')).not.toMatch(/<script|\son[a-z]+=|style="/i);
  return csp;
}

const ROUTES = apiRoutes({
  'GET /api/bio': { list: 'bios' },
  'GET /api/bio/{id}': {},
  'POST /api/bio/add': { body: { name: 'x' } },
  'PUT /api/bio/{id}/update': { body: { name: 'x' } },
  'DELETE /api/bio/{id}/delete': {},
});

describe('bio pages', () => {
  const { t, user } = useSuite({ user: {} });

  const visit = (path: string, host = MAIN, app = t) =>
    app
      .http()
      .get(path)
      .set('Host', host)
      .set('User-Agent', BROWSER_UA)
      .set('X-Forwarded-For', `203.0.113.${Math.floor(Math.random() * 200) + 1}`)
      .redirects(0);
  const {
    add,
    update,
    get: read,
    list,
    remove,
    onePage,
    expectPagination,
  } = resourceApi(t, 'bio', '/api/bio', 'bios');
  const created = async (u: TestUser, body: object): Promise<{ id: number; alias: string }> => {
    const res = await add(u, body);
    expect(res.status).toBe(200);
    return { id: res.body.id, alias: (res.body.url as string).split('/').pop() as string };
  };

  it('401 without a key on every route', () => ROUTES.expectKeyRequired(t));

  it('documents every route in the OpenAPI document, with its envelope and errors', async () => {
    await ROUTES.expectDocumented(t);
    const { paths, components } = (await t.http().get('/docs-json')).body;
    const body = paths['/api/bio/add'].post.requestBody.content['application/json'].schema;
    const dto = components.schemas[body.$ref.split('/').pop()];
    expect(Object.keys(dto.properties).sort()).toEqual(
      [
        'alias',
        'avatar',
        'description',
        'domain',
        'links',
        'name',
        'socials',
        'theme',
        'title',
      ].sort(),
    );
    expect(dto.required).toEqual(['name']);
    for (const code of ['400', '403', '404', '409'])
      expect(paths['/api/bio/{id}/update'].put.responses[code]).toBeDefined();
  });

  describe('POST /api/bio/add and GET /api/bio/:id', () => {
    it('creates a page with only a name: generated alias, defaults, zero statistics', async () => {
      const u = await createUser(t);
      const res = await add(u, { name: 'Minimal' }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'id', 'url']);
      expect(res.body.error).toBe(0);
      expect(res.body.url).toMatch(/^http:\/\/short\.test\/[A-Za-z0-9]{7}$/);
      const alias = res.body.url.split('/').pop();
      expect((await read(u, res.body.id).expect(200)).body).toEqual({
        error: 0,
        id: res.body.id,
        details: {
          id: res.body.id,
          name: 'Minimal',
          alias,
          url: res.body.url,
          domain: null,
          title: '',
          description: '',
          avatar: '',
          theme: 'light',
          links: [],
          socials: {},
          clicks: 0,
          uniqueClicks: 0,
          date: expect.stringMatching(DATE_TIME),
        },
        data: EMPTY_STATS,
      });
    });

    it('creates a page with every field, echoed field by field', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const alias = uniq('bio');
      const body = {
        name: 'Full',
        alias,
        domain: domain.id,
        title: 'Jane Doe',
        description: 'Designer',
        avatar: 'https://cdn.example/jane.jpg',
        theme: 'dark',
        links: [
          { title: 'Shop', url: 'https://shop.example/' },
          { title: 'Blog', url: 'https://blog.example/post?x=1' },
        ],
        socials: { x: 'https://x.example/jane', github: 'https://github.example/jane' },
      };
      const res = await add(u, body).expect(200);
      expect(res.body).toEqual({ error: 0, id: expect.any(Number), url: `${domain.url}/${alias}` });
      const { details } = (await read(u, res.body.id).expect(200)).body;
      expect(details).toEqual({
        ...body,
        id: res.body.id,
        url: `${domain.url}/${alias}`,
        domain: domain.url,
        clicks: 0,
        uniqueClicks: 0,
        date: expect.stringMatching(DATE_TIME),
      });
      // the domain by host name works too
      const byHost = await add(u, { name: 'Host', domain: domain.host }).expect(200);
      expect(byHost.body.url).toMatch(new RegExp(`^${domain.url}/`));
    });

    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['no name', {}, /^name: /],
      ['empty name', { name: '' }, /^name: must be 1 to 100 characters/],
      ['long name', { name: 'n'.repeat(101) }, /^name: /],
      ['numeric name', { name: 5 }, /^name: /],
      ['null name', { name: null }, /^name: /],
      ['short alias', { name: 'n', alias: 'ab' }, /^alias: must be 3 to 64 characters/],
      ['alias with a space', { name: 'n', alias: 'a b c' }, /^alias: /],
      ['reserved alias', { name: 'n', alias: 'api' }, /^alias: is reserved$/],
      // the front hands these paths to Nest: never served as a page
      ['Nest path alias health2', { name: 'n', alias: 'health2' }, /^alias: is reserved$/],
      ['Nest path alias docs1', { name: 'n', alias: 'docs1' }, /^alias: is reserved$/],
      ['Nest path alias docs-json2', { name: 'n', alias: 'docs-json2' }, /^alias: is reserved$/],
      ['long alias', { name: 'n', alias: 'a'.repeat(65) }, /^alias: /],
      ['domain 0', { name: 'n', domain: 0 }, /^domain: /],
      ['domain not mine', { name: 'n', domain: 'nope.example.com' }, /^domain: is not one of your/],
      ['domain object', { name: 'n', domain: {} }, /^domain: /],
      ['long title', { name: 'n', title: 't'.repeat(256) }, /^title: must be at most 255/],
      ['long description', { name: 'n', description: 'd'.repeat(501) }, /^description: /],
      ['avatar not a URL', { name: 'n', avatar: 'cat.png' }, /^avatar: /],
      ['avatar javascript', { name: 'n', avatar: 'javascript:alert(1)' }, /^avatar: /],
      ['theme', { name: 'n', theme: 'blue' }, /^theme: must be one of light, dark$/],
      ['links not an array', { name: 'n', links: 'x' }, /^links: /],
      [
        'too many links',
        { name: 'n', links: Array(51).fill({ title: 't', url: 'https://e.example/' }) },
        /^links: must have at most 50 entries/,
      ],
      ['link not an object', { name: 'n', links: ['https://e.example/'] }, /^links\[0\]: /],
      [
        'link without title',
        { name: 'n', links: [{ url: 'https://e.example/' }] },
        /^links\[0\]\.title: /,
      ],
      [
        'link title too long',
        { name: 'n', links: [{ title: 't'.repeat(101), url: 'https://e.example/' }] },
        /^links\[0\]\.title: must be 1 to 100 characters/,
      ],
      [
        'link url javascript',
        {
          name: 'n',
          links: [
            { title: 'ok', url: 'https://e.example/' },
            { title: 't', url: 'javascript:alert(1)' },
          ],
        },
        /^links\[1\]\.url: must be an absolute http\(s\) URL/,
      ],
      [
        'link unknown field',
        { name: 'n', links: [{ title: 't', url: 'https://e.example/', icon: 'x' }] },
        /^links\[0\]\.icon: unknown field/,
      ],
      ['socials array', { name: 'n', socials: ['https://x.example/'] }, /^socials: /],
      [
        'socials unknown network',
        { name: 'n', socials: { myspace: 'https://myspace.example/' } },
        /^socials\.myspace: unknown field/,
      ],
      ['socials bad url', { name: 'n', socials: { x: 'x.com/jane' } }, /^socials\.x: must be/],
      ['unknown field', { name: 'n', color: 'red' }, /^color: unknown field/],
    ];
    for (const [what, body, message] of bad) {
      it(`400 naming the field: ${what}; nothing created`, async () => {
        const u = await createUser(t);
        expectError(await add(u, body), 400, message);
        expect(await countOwned(t, 'links', u.id)).toBe(0);
        expect(await countOwned(t, 'bio_pages', u.id)).toBe(0);
      });
    }

    it("400 for another user's branded domain", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const theirs = await insertDomain(t, other.id);
      expectError(await add(u, { name: 'n', domain: theirs.id }), 400, /^domain: /);
      expectError(await add(u, { name: 'n', domain: theirs.host }), 400, /^domain: /);
      expect(await countOwned(t, 'links', u.id)).toBe(0);
    });

    it('400 for a blocked destination, naming the field', async () => {
      const admin = await createUser(t, { admin: true });
      const host = `${uniq('blocked')}.example`;
      await t
        .http()
        .post('/api/admin/blocklist/add')
        .set(admin.auth)
        .send({ entry: host })
        .expect(200);
      const u = await createUser(t);
      expectError(
        await add(u, {
          name: 'n',
          links: [
            { title: 'ok', url: 'https://ok.example/' },
            { title: 'bad', url: `https://${host}/x` },
          ],
        }),
        400,
        /^links\[1\]\.url: this destination is blocked$/,
      );
      expectError(
        await add(u, { name: 'n', socials: { youtube: `https://www.${host}/` } }),
        400,
        /^socials\.youtube: this destination is blocked$/,
      );
      expectError(
        await add(u, { name: 'n', avatar: `https://${host}/a.png` }),
        400,
        /^avatar: this destination is blocked$/,
      );
      // all of them blocked: one pass in the body's order (avatar, socials, buttons) names the first
      const everything = {
        avatar: `https://${host}/a.png`,
        socials: { youtube: `https://www.${host}/` },
        links: [{ title: 'bad', url: `https://${host}/x` }],
      };
      expectError(await add(u, { name: 'n', ...everything }), 400, /^avatar: /);
      const { avatar: _a, ...rest } = everything;
      expectError(await add(u, { name: 'n', ...rest }), 400, /^socials\.youtube: /);
      const page = await add(u, { name: 'n' }).expect(200);
      expectError(await update(u, page.body.id, rest), 400, /^socials\.youtube: /);
      expect(await countOwned(t, 'links', u.id)).toBe(1);
    });

    it('409 for an alias already taken by a link or a bio page', async () => {
      const u = await createUser(t);
      const taken = await insertLink(t, user.id);
      expectError(await add(u, { name: 'n', alias: taken.alias }), 409, /^alias: .*taken/);
      const page = await created(u, { name: 'first' });
      expectError(await add(u, { name: 'n', alias: page.alias }), 409, /^alias: .*taken/);
      expect(await countOwned(t, 'bio_pages', u.id)).toBe(1);
    });

    it('403 for a chosen alias when the plan has aliases disabled; generated ones still work', async () => {
      const planId = await createPlan(t, { alias: { enabled: '0' } });
      const u = await createUser(t, { planId });
      expectError(await add(u, { name: 'n', alias: uniq('x') }), 403, /"alias"/);
      await add(u, { name: 'n' }).expect(200);
    });

    it("bio pages count against the plan's links: 40 concurrent bio/add and url/add leave exactly the limit", async () => {
      const planId = await createPlan(t, { links: 3 });
      const u = await createUser(t, { planId });
      await addLink(t, u, { url: 'https://example.com/first' });
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 2
            ? add(u, { name: `page ${i}` })
            : t
                .http()
                .post('/api/url/add')
                .set(u.auth)
                .send({ url: `https://example.com/${i}` }),
        ),
      );
      expect(answers.filter((r) => r.status === 200)).toHaveLength(2);
      for (const r of answers.filter((r) => r.status !== 200))
        expectError(r, 403, /^Plan limit reached: your plan allows 3 links$/);
      const [row] = await t.db.query(
        `SELECT count(*)::int AS n FROM links WHERE user_id = $1 AND kind IN ('link', 'bio')`,
        [u.id],
      );
      expect(row.n).toBe(3);
      // at the limit, a bio page alone is refused too
      expectError(await add(u, { name: 'one more' }), 403, /allows 3 links/);
    });

    it("GET: 404 for another user's page, a plain link id, an unknown id; 400 for a bad id", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const theirs = await created(other, { name: 'theirs' });
      const link = await insertLink(t, u.id);
      expectError(await read(u, theirs.id), 404, /^Bio page not found$/);
      expectError(await read(u, link.id), 404, /^Bio page not found$/);
      expectError(await read(u, 2147483000), 404, /^Bio page not found$/);
      expectError(await read(u, 'abc'), 400, /^id: /);
    });
  });

  describe('GET /api/bio', () => {
    it("lists the caller's pages under `bios`, newest first, in the documented shape", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      await created(other, { name: 'not mine' });
      const a = await created(u, {
        name: 'A',
        title: 'Title A',
        links: [{ title: 'x', url: 'https://x.example/' }],
      });
      const b = await created(u, { name: 'B', theme: 'dark' });
      const body = (await list(u).expect(200)).body;
      expect(body).toEqual(
        onePage([
          expect.objectContaining({ id: b.id, name: 'B', alias: b.alias, theme: 'dark' }),
          expect.objectContaining({
            id: a.id,
            name: 'A',
            title: 'Title A',
            url: `${BASE}/${a.alias}`,
            links: [{ title: 'x', url: 'https://x.example/' }],
          }),
        ]),
      );
      expect(Object.keys(body.data.bios[0]).sort()).toEqual(
        [
          'alias',
          'avatar',
          'clicks',
          'date',
          'description',
          'domain',
          'id',
          'links',
          'name',
          'socials',
          'theme',
          'title',
          'uniqueClicks',
          'url',
        ].sort(),
      );
    });

    it('paginates', async () => {
      const u = await createUser(t);
      const ids = [
        (await created(u, { name: 'a' })).id,
        (await created(u, { name: 'b' })).id,
        (await created(u, { name: 'c' })).id,
      ];
      await expectPagination(u, ids);
    });
  });

  describe('PUT /api/bio/:id/update', () => {
    it('changes only the fields sent, each one; links and socials replace the whole list', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const page = await created(u, {
        name: 'Before',
        title: 'T',
        description: 'D',
        avatar: 'https://cdn.example/a.png',
        links: [{ title: 'one', url: 'https://one.example/' }],
        socials: { x: 'https://x.example/me' },
      });
      const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
        [{ name: 'After' }, { name: 'After' }],
        [{ title: 'New title' }, { title: 'New title' }],
        [{ description: '' }, { description: '' }],
        [{ avatar: '' }, { avatar: '' }],
        [{ theme: 'dark' }, { theme: 'dark' }],
        [
          { links: [{ title: 'two', url: 'https://two.example/' }] },
          { links: [{ title: 'two', url: 'https://two.example/' }] },
        ],
        [
          { socials: { github: 'https://gh.example/me' } },
          { socials: { github: 'https://gh.example/me' } },
        ],
        [{ domain: domain.id }, { domain: domain.url, url: `${domain.url}/${page.alias}` }],
        [{ domain: null }, { domain: null, url: `${BASE}/${page.alias}` }],
      ];
      let expected = (await read(u, page.id)).body.details;
      for (const [body, change] of steps) {
        const res = await update(u, page.id, body).expect(200);
        expected = { ...expected, ...change };
        expect(res.body).toEqual({ error: 0, id: page.id, url: expected.url });
        expect((await read(u, page.id)).body.details).toEqual(expected);
      }
    });

    it('a new alias moves the page: the old address stops answering, the new one serves', async () => {
      const u = await createUser(t);
      const page = await created(u, { name: 'Moving', title: 'Moving page' });
      expect((await visit(`/${page.alias}`)).status).toBe(200);
      const alias = uniq('moved');
      expect((await update(u, page.id, { alias }).expect(200)).body.url).toBe(`${BASE}/${alias}`);
      expect((await visit(`/${page.alias}`)).status).toBe(404);
      expect((await visit(`/${alias}`)).text).toContain('Moving page');
    });

    it('400 per field, 400 without any field, 409 for a taken alias; nothing changes', async () => {
      const u = await createUser(t);
      const page = await created(u, { name: 'keep' });
      const before = (await read(u, page.id)).body.details;
      expectError(await update(u, page.id, {}), 400, /at least one field/);
      expectError(await update(u, page.id, { name: '' }), 400, /^name: /);
      expectError(await update(u, page.id, { name: null }), 400, /^name: /);
      expectError(await update(u, page.id, { alias: 'a' }), 400, /^alias: /);
      expectError(await update(u, page.id, { theme: 'neon' }), 400, /^theme: /);
      expectError(await update(u, page.id, { avatar: 'ftp://a.example/x' }), 400, /^avatar: /);
      expectError(await update(u, page.id, { links: null }), 400, /^links: /);
      expectError(
        await update(u, page.id, { links: [{ title: 'x', url: 'mailto:a@b.c' }] }),
        400,
        /^links\[0\]\.url: /,
      );
      expectError(
        await update(u, page.id, { socials: { foo: 'https://a.example/' } }),
        400,
        /^socials\.foo: /,
      );
      expectError(await update(u, page.id, { domain: 'nope.example' }), 400, /^domain: /);
      expectError(await update(u, page.id, { id: 3 }), 400, /^id: unknown field/);
      const taken = await insertLink(t, user.id);
      expectError(await update(u, page.id, { alias: taken.alias }), 409, /^alias: /);
      expect((await read(u, page.id)).body.details).toEqual(before);
    });

    it("404 for another user's page or a plain link; nothing changes", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const theirs = await created(other, { name: 'theirs' });
      const link = await insertLink(t, u.id);
      expectError(await update(u, theirs.id, { name: 'pwned' }), 404, /^Bio page not found$/);
      expectError(await update(u, link.id, { name: 'x' }), 404, /^Bio page not found$/);
      expect((await read(other, theirs.id)).body.details.name).toBe('theirs');
    });
  });

  describe('DELETE /api/bio/:id/delete', () => {
    it('deletes the page: gone from the API, its address and its channels', async () => {
      const u = await createUser(t);
      const page = await created(u, { name: 'bye' });
      const channel = (
        await t.http().post('/api/channel/add').set(u.auth).send({ name: 'ch' }).expect(200)
      ).body.id;
      await t.http().post(`/api/channel/${channel}/assign/bio/${page.id}`).set(u.auth).expect(200);
      expect((await visit(`/${page.alias}`)).status).toBe(200);
      expect((await remove(u, page.id).expect(200)).body).toEqual({
        error: 0,
        message: expect.any(String),
      });
      expectError(await read(u, page.id), 404);
      expect((await visit(`/${page.alias}`)).status).toBe(404);
      expect(await countOwned(t, 'bio_pages', u.id)).toBe(0);
      expect(await countOwned(t, 'channel_items', u.id)).toBe(0);
      expectError(await remove(u, page.id), 404);
    });

    it("404 for another user's page or a plain link; nothing deleted", async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const theirs = await created(other, { name: 'theirs' });
      const link = await insertLink(t, u.id);
      expectError(await remove(u, theirs.id), 404, /^Bio page not found$/);
      expectError(await remove(u, link.id), 404, /^Bio page not found$/);
      expect(await countOwned(t, 'bio_pages', other.id)).toBe(1);
      expect(await countOwned(t, 'links', u.id)).toBe(1);
    });
  });

  describe('the page at /<alias>', () => {
    it('renders the page, escaped, with a strict CSP; light by default, dark on request', async () => {
      const u = await createUser(t);
      const page = await created(u, {
        name: 'Page',
        title: 'Jane',
        description: 'Hello there',
        avatar: 'https://cdn.example/jane.jpg',
        links: [
          { title: 'Shop', url: 'https://shop.example/' },
          { title: 'Blog', url: 'https://blog.example/' },
        ],
        socials: { x: 'https://x.example/jane', linkedin: 'https://linkedin.example/in/jane' },
      });
      const res = await visit(`/${page.alias}`);
      const csp = expectHtmlPage(res, 200);
      expect(csp).toContain('img-src https://cdn.example');
      expect(res.headers['cache-control']).toBe('no-cache');
      for (const html of [
        '<h1>Jane</h1>',
        'Hello there',
        '<img class="avatar" src="https://cdn.example/jane.jpg"',
        '<a class="button" href="?go=0" rel="nofollow">Shop</a>',
        '<a class="button" href="?go=1" rel="nofollow">Blog</a>',
        'href="?go=x"',
        '>LinkedIn</a>',
        'name="viewport" content="width=device-width,initial-scale=1"',
        'background:#f6f8fa',
      ])
        expect(res.text).toContain(html);
      await update(u, page.id, { theme: 'dark' }).expect(200);
      const dark = await visit(`/${page.alias}`);
      expectHtmlPage(dark, 200);
      expect(dark.text).toContain('background:#0d1117');
      // untitled: the name is the heading
      const untitled = await created(u, { name: 'Only a name' });
      expect((await visit(`/${untitled.alias}`)).text).toContain('<h1>Only a name</h1>');
    });

    it('prints XSS payloads in every field as text', async () => {
      const u = await createUser(t);
      const page = await created(u, {
        name: XSS,
        title: XSS,
        description: XSS,
        avatar: `https://cdn.example/a.png?q="><script>alert(3)</script>`,
        links: [{ title: XSS, url: `https://e.example/"><script>alert(4)</script>` }],
      });
      const res = await visit(`/${page.alias}`);
      expectHtmlPage(res, 200);
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).not.toContain('<img src=x');
      expect(res.text.split(ESCAPED_XSS).length - 1).toBeGreaterThanOrEqual(3);
    });

    it('each button and social link forwards (302) and counts as a visit of the page', async () => {
      const u = await createUser(t);
      const page = await created(u, {
        name: 'Counted',
        links: [
          { title: 'A', url: 'https://a.example/' },
          { title: 'B', url: 'https://b.example/path?x=1' },
        ],
        socials: { github: 'https://github.example/me' },
      });
      expect((await visit(`/${page.alias}`)).status).toBe(200);
      const a = await visit(`/${page.alias}?go=0`);
      expect(a.status).toBe(302);
      expect(a.headers.location).toBe('https://a.example/');
      expect(a.headers['cache-control']).toBe('no-store');
      expect((await visit(`/${page.alias}?go=1`)).headers.location).toBe(
        'https://b.example/path?x=1',
      );
      expect((await visit(`/${page.alias}?go=github`)).headers.location).toBe(
        'https://github.example/me',
      );
      await eventually(async () => (await readStats(t, page.id)).clicks === 4);
      // not on the page: 404 (and not counted)
      expect((await visit(`/${page.alias}?go=2`)).status).toBe(404);
      expect((await visit(`/${page.alias}?go=x`)).status).toBe(404);
      expect((await visit(`/${page.alias}?go=constructor`)).status).toBe(404);
      expect((await t.http().post(`/${page.alias}`).set('Host', MAIN).send('a=b')).status).toBe(
        405,
      );
      await new Promise((r) => setTimeout(r, 700));
      expect((await readStats(t, page.id)).clicks).toBe(4);
      expect((await read(u, page.id)).body.details.clicks).toBe(4);
    });

    it('leaves private and deleted own links out, and shows them again once public', async () => {
      const u = await createUser(t);
      const priv = await addLink(t, u, { url: 'https://private.example/', status: 'private' });
      const pub = await addLink(t, u, { url: 'https://public.example/' });
      const page = await created(u, {
        name: 'Mixed',
        links: [
          { title: 'Private one', url: priv.shorturl },
          { title: 'Public one', url: pub.shorturl },
          { title: 'Elsewhere', url: 'https://else.example/' },
        ],
      });
      let res = await visit(`/${page.alias}`);
      expect(res.text).not.toContain('Private one');
      expect(res.text).toContain('<a class="button" href="?go=1" rel="nofollow">Public one</a>');
      expect(res.text).toContain('href="?go=2"');
      expect((await visit(`/${page.alias}?go=0`)).status).toBe(404);
      expect((await visit(`/${page.alias}?go=1`)).headers.location).toBe(pub.shorturl);
      // the API still lists every button
      expect((await read(u, page.id)).body.details.links).toHaveLength(3);

      await t
        .http()
        .put(`/api/url/${priv.id}/update`)
        .set(u.auth)
        .send({ status: 'public' })
        .expect(200);
      res = await visit(`/${page.alias}`);
      expect(res.text).toContain('Private one');
      await t
        .http()
        .put(`/api/url/${pub.id}/update`)
        .set(u.auth)
        .send({ status: 'private' })
        .expect(200);
      expect((await visit(`/${page.alias}`)).text).not.toContain('Public one');
      await t.http().delete(`/api/url/${priv.id}/delete`).set(u.auth).expect(200);
      expect((await visit(`/${page.alias}`)).text).not.toContain('Private one');
    });

    it('lives on its branded domain only when it has one', async () => {
      const u = await createUser(t);
      const domain = await insertDomain(t, u.id);
      const page = await created(u, { name: 'Branded', title: 'On my domain', domain: domain.id });
      expect((await visit(`/${page.alias}`, domain.host)).text).toContain('On my domain');
      expect((await visit(`/${page.alias}?go=0`, domain.host)).status).toBe(404);
      expect((await visit(`/${page.alias}`, MAIN)).status).toBe(404);
    });

    it('a second api instance drops its cached page when the first one changes or deletes it', async () => {
      await withTestApp({}, async (t2) => {
        const u = await createUser(t);
        const page = await created(u, { name: 'Replicated', title: 'Version one' });
        await eventually(async () => t2.app.get(CacheBus).live);
        // creation's own invalidation is repeated once, REPEAT_INVALIDATION_MS later: let it pass
        await new Promise((r) => setTimeout(r, REPEAT_INVALIDATION_MS + 200));
        expect((await visit(`/${page.alias}`, MAIN, t2)).text).toContain('Version one');
        // t2 now answers from its own memory: a change behind its back (SQL, Redis copy gone) is not seen
        await t.db.query(`UPDATE links SET title = 'sneaky' WHERE id = $1`, [page.id]);
        await t.redis.client.del(t.redis.key('link', page.alias));
        expect((await visit(`/${page.alias}`, MAIN, t2)).text).toContain('Version one');
        await update(u, page.id, { title: 'Version two' }).expect(200);
        await eventually(
          async () => (await visit(`/${page.alias}`, MAIN, t2)).text.includes('Version two'),
          3000,
          20,
        );
        await remove(u, page.id).expect(200);
        await eventually(
          async () => (await visit(`/${page.alias}`, MAIN, t2)).status === 404,
          3000,
          20,
        );
      });
    });
  });

  it('is a channel item of type bio, with the page URL as preview', async () => {
    const u = await createUser(t);
    const page = await created(u, { name: 'In a channel', title: 'Channel title' });
    const channel = (
      await t.http().post('/api/channel/add').set(u.auth).send({ name: 'ch' }).expect(200)
    ).body.id;
    await t.http().post(`/api/channel/${channel}/assign/bio/${page.id}`).set(u.auth).expect(200);
    const items = (await t.http().get(`/api/channel/${channel}`).set(u.auth).expect(200)).body.data
      .items;
    expect(items).toEqual([
      {
        type: 'bio',
        id: page.id,
        title: 'Channel title',
        preview: `${BASE}/${page.alias}`,
        link: `${BASE}/${page.alias}`,
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      },
    ]);
  });

  it('deleting a user deletes their bio pages; the pages stop answering at once', async () => {
    const admin = await createUser(t, { admin: true });
    const u = await createUser(t);
    const page = await created(u, { name: 'Owner leaves' });
    expect((await visit(`/${page.alias}`)).status).toBe(200);
    await t.http().delete(`/api/user/${u.id}/delete`).set(admin.auth).expect(200);
    expect(await countOwned(t, 'bio_pages', u.id)).toBe(0);
    expect((await visit(`/${page.alias}`)).status).toBe(404);
  });
});
