import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { INestApplicationContext } from '@nestjs/common';

import {
  createPlan,
  createTestApp,
  createTestWorker,
  createUser,
  DATE_TIME,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { addLink, dateTimeIn, insertDomain, insertOverlay, uniq } from './support/links';
import { eventually } from './support/stats';

const MAIN = 'short.test';

/**
 * docs/trust.md: the blocklist (BLOCKLIST_FILE + admin routes; domains with their subdomains,
 * keywords) refuses new destinations and turns existing links into the 451 page on every replica
 * within moments; admins disable and enable any link. Entries are unique per test (the list is
 * shared by every suite of the run) and removed afterwards.
 */
describe('blocklist and admin disable', () => {
  let a: TestApp;
  /** A second replica: it hears of changes only over Redis. */
  let b: TestApp;
  let worker: INestApplicationContext;
  let admin: TestUser;
  let user: TestUser;
  /** May use every surface that names a destination: targeting, deep links, splash, overlay, domains. */
  let pro: TestUser;
  let dir: string;
  let fileHost: string;
  const added: number[] = [];

  const visit = (app: TestApp, path: string, host = MAIN) =>
    app.http().get(path).set('Host', host).redirects(0);
  const block = async (entry: string) => {
    const res = await a
      .http()
      .post('/api/admin/blocklist/add')
      .set(admin.auth)
      .send({ entry })
      .expect(200);
    added.push(res.body.id);
    return res.body as { error: number; id: number; entry: string };
  };
  const unblock = (id: number) =>
    a.http().delete(`/api/admin/blocklist/${id}/delete`).set(admin.auth);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'blocklist-'));
    fileHost = `${uniq('file')}.test`;
    const file = join(dir, 'blocklist.txt');
    writeFileSync(
      file,
      `# operator's list\n\n${fileHost}   # a comment\nnot a valid entry here\nkeyword:${uniq('kwfile')}\n`,
    );
    a = await createTestApp({ BLOCKLIST_FILE: file });
    b = await createTestApp({ BLOCKLIST_FILE: file });
    // the worker runs the import jobs (and reads the file too)
    worker = await createTestWorker({ BLOCKLIST_FILE: file });
    admin = await createUser(a, { admin: true });
    user = await createUser(a);
    const planId = await createPlan(a, {
      geo: { enabled: '1' },
      device: { enabled: '1' },
      splash: { enabled: '1', count: '0' },
      overlay: { enabled: '1', count: '0' },
      domain: { enabled: '1', count: '0' },
    });
    pro = await createUser(a, { planId });
  });
  afterAll(async () => {
    for (const id of added) await unblock(id);
    await a.close();
    await b.close();
    await worker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('admin routes', () => {
    it('adds a domain (normalised from a URL) and a keyword, lists them newest first, deletes them', async () => {
      const host = `${uniq('bad')}.test`;
      const word = uniq('kw').toLowerCase();
      const d = await block(`HTTPS://${host.toUpperCase()}./some/path`);
      expect(d).toEqual({ error: 0, id: expect.any(Number), entry: host });
      const k = await block(`Keyword:${word.toUpperCase()}`);
      expect(k).toEqual({ error: 0, id: expect.any(Number), entry: `keyword:${word}` });

      const list = await a.http().get('/api/admin/blocklist?limit=100').set(admin.auth).expect(200);
      const entries = list.body.data.blocklist as Array<{ id: number; entry: string }>;
      const mine = entries.filter((e) => e.id === d.id || e.id === k.id);
      expect(mine).toEqual([
        { id: k.id, entry: `keyword:${word}`, date: expect.stringMatching(DATE_TIME) },
        { id: d.id, entry: host, date: expect.stringMatching(DATE_TIME) },
      ]);
      // the operator's file entries are applied but not listed
      expect(entries.some((e) => e.entry === fileHost)).toBe(false);

      expect((await unblock(k.id).expect(200)).body).toEqual({
        error: 0,
        message: expect.any(String),
      });
      expectError(await unblock(k.id), 404);
    });

    it('400 naming entry for what is neither a domain nor keyword:<word>; 409 for a duplicate', async () => {
      for (const entry of ['', 'no dots', 'localhost', 'keyword:a', 'keyword:two words', 42]) {
        const res = await a.http().post('/api/admin/blocklist/add').set(admin.auth).send({ entry });
        expectError(res, 400, /entry/);
      }
      const host = `${uniq('dup')}.test`;
      await block(host);
      expectError(
        await a.http().post('/api/admin/blocklist/add').set(admin.auth).send({ entry: host }),
        409,
      );
    });

    it('is for admins only: 403 for a user, 401 without a key', async () => {
      expectError(await a.http().get('/api/admin/blocklist').set(user.auth), 403);
      expectError(
        await a.http().post('/api/admin/blocklist/add').set(user.auth).send({ entry: 'x.test' }),
        403,
      );
      expectError(await a.http().delete('/api/admin/blocklist/1/delete').set(user.auth), 403);
      expectError(await a.http().get('/api/admin/blocklist'), 401);
    });
  });

  describe('refusal of new destinations', () => {
    it('refuses a blocked domain, its subdomains and a keyword match on url/add, naming the field; nothing created', async () => {
      const host = `${uniq('evil')}.test`;
      const word = uniq('scamword').toLowerCase();
      await block(host);
      await block(`keyword:${word}`);
      for (const url of [
        `https://${host}/x`,
        `http://deep.sub.${host}/`,
        `https://fine.example/${word.toUpperCase()}?q=1`,
        `https://${fileHost}/from-the-file`,
      ]) {
        const [{ n: before }] = await a.db.query(
          `SELECT count(*)::int AS n FROM links WHERE user_id = $1`,
          [user.id],
        );
        const res = await a.http().post('/api/url/add').set(user.auth).send({ url });
        expect(expectError(res, 400)).toBe('url: this destination is blocked');
        const [{ n: after }] = await a.db.query(
          `SELECT count(*)::int AS n FROM links WHERE user_id = $1`,
          [user.id],
        );
        expect(after).toBe(before);
      }
      // a look-alike host is not a subdomain
      await addLink(a, user, { url: `https://not${host}/` });
    });

    it('refuses it in targeting rules, expiration redirects, domain redirects and QR link data', async () => {
      const host = `${uniq('evil')}.test`;
      await block(host);
      const bad = `https://${host}/`;
      const link = await addLink(a, user, { url: 'https://example.com/fine' });
      const pro = await a.db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
      const proUser = await createUser(a, { planId: pro[0].id });
      const cases: Array<[string, string, object, RegExp]> = [
        [
          'post',
          '/api/url/add',
          { url: 'https://example.com/', geotarget: [{ location: 'US', link: bad }] },
          /^geotarget\[0\]\.link: this destination is blocked$/,
        ],
        [
          'put',
          `/api/url/${link.id}/update`,
          { expirationredirect: bad },
          /^expirationredirect: this destination is blocked$/,
        ],
        [
          'put',
          `/api/url/${link.id}/update`,
          { fallbackurl: bad },
          /^fallbackurl: this destination is blocked$/,
        ],
        [
          'post',
          '/api/url/add',
          { url: 'https://example.com/', fallbackurl: bad },
          /^fallbackurl: this destination is blocked$/,
        ],
        [
          'post',
          '/api/domain/add',
          { domain: `https://${uniq('d')}.brand.test`, redirect404: bad },
          /^redirect404: this destination is blocked$/,
        ],
        ['post', '/api/qr/add', { type: 'link', data: bad }, /^data: this destination is blocked$/],
      ];
      for (const [method, path, body, message] of cases) {
        const owner = path === '/api/url/add' || path === '/api/domain/add' ? proUser : user;
        const req = method === 'post' ? a.http().post(path) : a.http().put(path);
        const res = await req.set(owner === proUser ? proUser.auth : user.auth).send(body);
        expectError(res, 400, message);
      }
    });
  });

  describe('spellings of a blocked destination', () => {
    /** `evil…` spelled with its first letter percent-encoded once or twice, or full-width. */
    const spell = (word: string) => {
      const hex = word.charCodeAt(0).toString(16);
      return {
        encoded: `%${hex}${word.slice(1)}`,
        twice: `%25${hex}${word.slice(1)}`,
        wide: `${String.fromCharCode(word.charCodeAt(0) + 0xfee0)}${word.slice(1)}`,
        upper: word.toUpperCase(),
      };
    };
    const fallback = (url: string) =>
      `intent://open#Intent;scheme=myapp;package=com.example;S.browser_fallback_url=${encodeURIComponent(url)};end`;
    const refused = async (body: object, field: RegExp, linkId?: number) => {
      const res = linkId
        ? await a.http().put(`/api/url/${linkId}/update`).set(pro.auth).send(body)
        : await a.http().post('/api/url/add').set(pro.auth).send(body);
      expectError(res, 400, field);
    };

    it('refuses a blocked host percent-encoded (once or twice), full-width, upper case with trailing dots, and behind an intent fallback, on add and update', async () => {
      const host = `${uniq('evil')}.test`;
      await block(host);
      const s = spell(host);
      const blocked = /^url: this destination is blocked$/;
      const l = await addLink(a, pro, { url: 'https://example.com/fine' });
      for (const url of [
        `https://${s.encoded}/`,
        `https://${s.wide}/`,
        `https://${s.upper}../`,
        `https://sub.${s.upper}./x`,
      ]) {
        await refused({ url }, blocked);
        await refused({ url }, blocked, l.id);
      }
      // twice-encoded in a host is no URL at all; refused too
      await refused({ url: `https://${s.twice}/` }, /^url: /);
      // deep links: the host of any scheme, and an intent's fallback URL
      for (const [platform, link] of [
        ['apple', `myapp://${s.twice}/`],
        ['apple', `MyApp://${s.upper}../item`],
        ['google', fallback(`https://${s.encoded}/`)],
        ['google', fallback(`https://${s.wide}./`)],
        ['google', `intent://${s.upper}../#Intent;scheme=https;end`],
      ]) {
        const body = { url: 'https://example.com/', deeplink: { [platform]: link } };
        await refused(body, new RegExp(`^deeplink\\.${platform}: this destination is blocked$`));
        await refused(
          body,
          new RegExp(`^deeplink\\.${platform}: this destination is blocked$`),
          l.id,
        );
      }
      // and in targeting rules
      await refused(
        {
          url: 'https://example.com/',
          languagetarget: [{ language: 'fr', link: `https://${s.wide}/` }],
        },
        /^languagetarget\[0\]\.link: this destination is blocked$/,
      );
      expect((await visit(a, `/${l.alias}`)).headers.location).toBe('https://example.com/fine');
    });

    it('finds a keyword percent-encoded (once or twice), full-width, upper case, and behind an intent fallback', async () => {
      const word = uniq('kwsp');
      await block(`keyword:${word}`);
      const s = spell(word);
      const l = await addLink(a, pro, { url: 'https://example.com/fine' });
      for (const url of [
        `https://fine.example/${s.encoded}`,
        `https://fine.example/?q=${s.twice}`,
        `https://fine.example/${s.wide}`,
        `https://${s.upper}.example/`,
      ]) {
        await refused({ url }, /^url: this destination is blocked$/);
        await refused({ url }, /^url: this destination is blocked$/, l.id);
      }
      await refused(
        {
          url: 'https://example.com/',
          deeplink: { google: fallback(`https://fine.example/${s.twice}`) },
        },
        /^deeplink\.google: this destination is blocked$/,
      );
      await refused(
        { url: 'https://example.com/', expirationredirect: `https://fine.example/${s.encoded}` },
        /^expirationredirect: this destination is blocked$/,
        l.id,
      );
    });

    it('an intent (its web scheme or its fallback) may not point at the service itself either', async () => {
      for (const google of [
        fallback(`http://SHORT.test../x`),
        'intent://Short.Test./x#Intent;scheme=https;end',
      ])
        await refused(
          { url: 'https://example.com/', deeplink: { google } },
          /^deeplink\.google: must not point at this service/,
        );
    });
  });

  describe('existing links', () => {
    it('answer the 451 page on both replicas within moments of the entry, and forward again when it is removed', async () => {
      const host = `${uniq('later')}.test`;
      const l = await addLink(a, user, { url: `https://${host}/page` });
      // both replicas have the link cached as forwarding
      expect((await visit(a, `/${l.alias}`)).status).toBe(302);
      expect((await visit(b, `/${l.alias}`)).status).toBe(302);

      const { id } = await block(`www.${host}`); // a subdomain entry does not block the parent
      expect((await visit(b, `/${l.alias}`)).status).toBe(302);
      await unblock(id).expect(200);

      const entry = await block(host);
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/${l.alias}`)).status === 451, 5000, 50);
      const page = await visit(b, `/${l.alias}`);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers.location).toBeUndefined();
      expect(page.text).not.toContain(host);

      await unblock(entry.id).expect(200);
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/${l.alias}`)).status === 302, 5000, 50);
    });

    it('a link whose targeting rule or branded domain would send visitors to a blocked host answers 451 too', async () => {
      const host = `${uniq('rule')}.test`;
      const pro = await a.db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
      const proUser = await createUser(a, { planId: pro[0].id });
      const l = await addLink(a, proUser, {
        url: 'https://example.com/main',
        devicetarget: [{ device: 'iPhone', link: `https://${host}/ios` }],
      });
      expect((await visit(b, `/${l.alias}`)).status).toBe(302);
      await block(host);
      await eventually(async () => (await visit(b, `/${l.alias}`)).status === 451, 5000, 50);
    });

    it('a branded domain whose redirectroot or redirect404 becomes blocked answers 451 there, on both replicas', async () => {
      const host = `${uniq('rootbad')}.test`;
      const other = `${uniq('nfbad')}.test`;
      const d = await insertDomain(a, pro.id, {
        root: `https://${host}/home`,
        notFound: `https://${other}/missing`,
      });
      for (const app of [a, b]) {
        expect((await visit(app, '/', d.host)).headers.location).toBe(`https://${host}/home`);
        expect((await visit(app, '/no-such-alias', d.host)).status).toBe(302);
        expect((await visit(app, '/no/such/route', d.host)).status).toBe(302);
      }
      await block(host);
      for (const app of [a, b])
        await eventually(async () => (await visit(app, '/', d.host)).status === 451, 5000, 50);
      expect((await visit(b, '/no-such-alias', d.host)).headers.location).toBe(
        `https://${other}/missing`,
      );
      await block(`keyword:${other.split('.')[0]}`);
      for (const app of [a, b]) {
        await eventually(
          async () => (await visit(app, '/no-such-alias', d.host)).status === 451,
          5000,
          50,
        );
        expect((await visit(app, '/no/such/route', d.host)).status).toBe(451);
      }
      const page = await visit(b, '/', d.host);
      expect(page.headers.location).toBeUndefined();
      expect(page.text).not.toContain(host);
    });

    it('a link whose splash page or overlay button becomes blocked answers 451', async () => {
      const splashHost = `${uniq('splashbad')}.test`;
      const overlayHost = `${uniq('ovbad')}.test`;
      await a
        .http()
        .post('/api/splash/add')
        .set(pro.auth)
        .send({ name: 's', title: 'Hi', link: `https://${splashHost}/offer` })
        .expect(200);
      const splashLink = await addLink(a, pro, { url: 'https://example.com/s', type: 'splash' });
      const overlay = await insertOverlay(a, pro.id, { buttonLink: `https://${overlayHost}/cta` });
      const overlayLink = await addLink(a, pro, { url: 'https://example.com/o', type: overlay });
      expect((await visit(b, `/${splashLink.alias}`)).text).toContain(splashHost);
      expect((await visit(b, `/${overlayLink.alias}`)).text).toContain(overlayHost);

      await block(splashHost);
      await block(overlayHost);
      for (const app of [a, b]) {
        await eventually(
          async () => (await visit(app, `/${splashLink.alias}`)).status === 451,
          5000,
          50,
        );
        await eventually(
          async () => (await visit(app, `/${overlayLink.alias}`)).status === 451,
          5000,
          50,
        );
      }
    });

    it('a bio page drops a button whose destination becomes blocked; following it answers 451', async () => {
      const host = `${uniq('biobad')}.test`;
      const handle = uniq('biokw');
      const res = await a
        .http()
        .post('/api/bio/add')
        .set(pro.auth)
        .send({
          name: 'me',
          links: [
            { title: 'Fine', url: 'https://example.com/fine' },
            { title: 'Soon blocked', url: `https://${host}/x` },
          ],
          socials: { github: `https://github.com/${handle}` },
        })
        .expect(200);
      const alias = (res.body.url as string).split('/').pop() as string;
      for (const app of [a, b]) {
        const page = await visit(app, `/${alias}`);
        expect(page.text).toContain('?go=1');
        expect(page.text).toContain('?go=github');
      }
      await block(host);
      await block(`keyword:${handle}`);
      for (const app of [a, b]) {
        await eventually(
          async () => !(await visit(app, `/${alias}`)).text.includes('?go=github'),
          5000,
          50,
        );
        const page = await visit(app, `/${alias}`);
        expect(page.text).toContain('?go=0');
        expect(page.text).toContain('Fine');
        expect(page.text).not.toContain('Soon blocked');
        expect(page.text).not.toContain('?go=github');
        expect((await visit(app, `/${alias}?go=1`)).status).toBe(451);
        expect((await visit(app, `/${alias}?go=0`)).status).toBe(302);
      }
    });

    it('a link whose expiration redirect or intent fallback becomes blocked answers 451', async () => {
      const host = `${uniq('expbad')}.test`;
      const fallbackHost = `${uniq('fbbad')}.test`;
      const expired = await addLink(a, pro, {
        url: 'https://example.com/e',
        expiry: dateTimeIn(2500),
        expirationredirect: `https://${host}/after`,
      });
      const deep = await addLink(a, pro, {
        url: 'https://example.com/d',
        deeplink: {
          google: `intent://open#Intent;scheme=myapp;S.browser_fallback_url=${encodeURIComponent(`https://${fallbackHost}/`)};end`,
        },
      });
      await eventually(
        async () =>
          (await visit(b, `/${expired.alias}`)).headers.location === `https://${host}/after`,
        5000,
        100,
      );
      expect((await visit(b, `/${deep.alias}`)).status).toBe(302);
      await block(host);
      await block(fallbackHost);
      for (const app of [a, b]) {
        await eventually(
          async () => (await visit(app, `/${expired.alias}`)).status === 451,
          5000,
          50,
        );
        await eventually(async () => (await visit(app, `/${deep.alias}`)).status === 451, 5000, 50);
      }
    });

    it('BLOCKLIST_FILE entries apply to links created before the file listed them', async () => {
      const l = await addLink(a, user, { url: 'https://example.com/placeholder' });
      await a.db.query(`UPDATE links SET url = $1 WHERE id = $2`, [
        `https://${fileHost}/old`,
        l.id,
      ]);
      // a fresh replica reads the link from Postgres and screens it against the file
      const c = await createTestApp({ BLOCKLIST_FILE: join(dir, 'blocklist.txt') });
      try {
        expect((await visit(c, `/${l.alias}`)).status).toBe(451);
      } finally {
        await c.close();
      }
    });

    it('a QR code whose link data is blocked answers the 451 page when scanned', async () => {
      const host = `${uniq('qrbad')}.test`;
      const res = await a
        .http()
        .post('/api/qr/add')
        .set(user.auth)
        .send({ type: 'link', data: `https://${host}/menu` })
        .expect(200);
      const code = /\/q\/([A-Za-z0-9_-]+)/.exec(res.body.link as string)![1];
      expect((await visit(b, `/q/${code}`)).status).toBe(302);
      await block(host);
      await eventually(async () => (await visit(b, `/q/${code}`)).status === 451, 5000, 50);
    });
  });

  describe('admin disable / enable', () => {
    it('a disabled link answers 451 on both replicas at once; its owner sees disabled: true; enable restores it', async () => {
      const l = await addLink(a, user, { url: 'https://example.com/disable-me' });
      expect((await visit(a, `/${l.alias}`)).status).toBe(302);
      expect((await visit(b, `/${l.alias}`)).status).toBe(302);

      expect(
        (await a.http().put(`/api/admin/url/${l.id}/disable`).set(admin.auth).expect(200)).body,
      ).toEqual({ error: 0, message: 'Link has been disabled.' });
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/${l.alias}`)).status === 451, 1000, 20);
      const details = await a.http().get(`/api/url/${l.id}`).set(user.auth).expect(200);
      expect(details.body.details.disabled).toBe(true);
      // the owner cannot lift it by editing the link
      await a
        .http()
        .put(`/api/url/${l.id}/update`)
        .set(user.auth)
        .send({ url: 'https://example.com/other' })
        .expect(200);
      expect((await visit(b, `/${l.alias}`)).status).toBe(451);

      expect(
        (await a.http().put(`/api/admin/url/${l.id}/enable`).set(admin.auth).expect(200)).body,
      ).toEqual({ error: 0, message: 'Link has been enabled.' });
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/${l.alias}`)).status === 302, 1000, 20);
      expect((await visit(b, `/${l.alias}`)).headers.location).toBe('https://example.com/other');
      expect((await a.http().get(`/api/url/${l.id}`).set(user.auth)).body.details.disabled).toBe(
        false,
      );
    });

    it('a bio page is taken down: 451 on both replicas at once; enable restores it', async () => {
      const alias = uniq('biodown');
      const bio = await a
        .http()
        .post('/api/bio/add')
        .set(user.auth)
        .send({ name: 'Mine', alias })
        .expect(200);
      expect((await visit(b, `/${alias}`)).status).toBe(200);
      expect(
        (await a.http().put(`/api/admin/url/${bio.body.id}/disable`).set(admin.auth).expect(200))
          .body,
      ).toEqual({ error: 0, message: 'Bio page has been disabled.' });
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/${alias}`)).status === 451, 1000, 20);
      // ?kind= names the id space; a bio page is not a link
      expectError(
        await a.http().put(`/api/admin/url/${bio.body.id}/enable?kind=link`).set(admin.auth),
        404,
      );
      expectError(
        await a.http().put(`/api/admin/url/${bio.body.id}/enable?kind=page`).set(admin.auth),
        400,
        /kind/,
      );
      await a
        .http()
        .put(`/api/admin/url/${bio.body.id}/enable?kind=bio`)
        .set(admin.auth)
        .expect(200);
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/${alias}`)).status === 200, 1000, 20);
    });

    it('a QR code is taken down by its own id (?kind=qr): scans answer 451 on both replicas', async () => {
      const res = await a
        .http()
        .post('/api/qr/add')
        .set(user.auth)
        .send({ type: 'link', data: 'https://example.com/qr-down' })
        .expect(200);
      const code = /\/q\/([A-Za-z0-9_-]+)/.exec(res.body.link as string)![1];
      for (const app of [a, b]) expect((await visit(app, `/q/${code}`)).status).toBe(302);
      expect(
        (
          await a
            .http()
            .put(`/api/admin/url/${res.body.id}/disable?kind=qr`)
            .set(admin.auth)
            .expect(200)
        ).body,
      ).toEqual({ error: 0, message: 'QR code has been disabled.' });
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/q/${code}`)).status === 451, 1000, 20);
      await a
        .http()
        .put(`/api/admin/url/${res.body.id}/enable?kind=qr`)
        .set(admin.auth)
        .expect(200);
      for (const app of [a, b])
        await eventually(async () => (await visit(app, `/q/${code}`)).status === 302, 1000, 20);
    });

    it('a takedown survives delete + re-create: the alias stays reserved until an admin enables it', async () => {
      const other = await createUser(a);
      const alias = uniq('down');
      const l = await addLink(a, user, { url: 'https://example.com/phish', custom: alias });
      await a.http().put(`/api/admin/url/${l.id}/disable`).set(admin.auth).expect(200);
      // the owner cannot move it to another alias either
      expectError(
        await a
          .http()
          .put(`/api/url/${l.id}/update`)
          .set(user.auth)
          .send({ custom: uniq('moved') }),
        403,
        /^custom: .*taken down/,
      );
      await a.http().delete(`/api/url/${l.id}/delete`).set(user.auth).expect(200);
      expect((await visit(b, `/${alias}`)).status).toBe(404);

      const again = (who: TestUser, body: Record<string, unknown>) =>
        a.http().post('/api/url/add').set(who.auth).send(body);
      expectError(
        await again(user, { url: 'https://example.com/phish', custom: alias }),
        403,
        /^custom: this alias was taken down/,
      );
      expectError(
        await again(other, { url: 'https://example.com/x', custom: alias }),
        409,
        /^custom: this alias is already taken/,
      );
      // nor as a bio page, nor by renaming another link, nor by an import
      expectError(
        await a.http().post('/api/bio/add').set(user.auth).send({ name: 'x', alias }),
        403,
        /^alias: this alias was taken down/,
      );
      const mine = await addLink(a, user, { url: 'https://example.com/mine2' });
      expectError(
        await a.http().put(`/api/url/${mine.id}/update`).set(user.auth).send({ custom: alias }),
        403,
        /^custom: this alias was taken down/,
      );
      const imported = await a
        .http()
        .post('/api/import')
        .set(user.auth)
        .send({ links: [{ url: 'https://example.com/i', alias }] })
        .expect(200);
      let job: { status: string; created: number; errors: Array<{ message: string }> } = {
        status: 'queued',
        created: 0,
        errors: [],
      };
      await eventually(
        async () => {
          job = (await a.http().get(`/api/import/${imported.body.id}`).set(user.auth)).body.data;
          return job.status === 'done' || job.status === 'failed';
        },
        10_000,
        50,
      );
      expect(job.created).toBe(0);
      expect(job.errors).toEqual([{ line: 1, message: expect.stringMatching(/taken down/) }]);
      expect((await visit(b, `/${alias}`)).status).toBe(404);

      // the admin's enable (same id, the link is gone) releases it
      expect(
        (await a.http().put(`/api/admin/url/${l.id}/enable`).set(admin.auth).expect(200)).body,
      ).toEqual({ error: 0, message: 'Link has been enabled.' });
      await again(user, { url: 'https://example.com/fixed', custom: alias }).expect(200);
      expect((await visit(b, `/${alias}`)).status).toBe(302);
    });

    it('a deleted bio page keeps its taken-down alias too', async () => {
      const alias = uniq('biogone');
      const bio = await a
        .http()
        .post('/api/bio/add')
        .set(user.auth)
        .send({ name: 'Mine', alias })
        .expect(200);
      await a.http().put(`/api/admin/url/${bio.body.id}/disable`).set(admin.auth).expect(200);
      await a.http().delete(`/api/bio/${bio.body.id}/delete`).set(user.auth).expect(200);
      expectError(
        await a.http().post('/api/bio/add').set(user.auth).send({ name: 'Again', alias }),
        403,
        /^alias: this alias was taken down/,
      );
      await a.http().put(`/api/admin/url/${bio.body.id}/enable`).set(admin.auth).expect(200);
      await a.http().post('/api/bio/add').set(user.auth).send({ name: 'Again', alias }).expect(200);
    });

    it('every writer of links respects a reservation: an insert is skipped (generated aliases draw again), a rename refused', async () => {
      const qr = await a
        .http()
        .post('/api/qr/add')
        .set(user.auth)
        .send({ type: 'text', data: 'taken down' })
        .expect(200);
      const code = /\/q\/([A-Za-z0-9_-]+)/.exec(qr.body.link as string)![1];
      await a
        .http()
        .put(`/api/admin/url/${qr.body.id}/disable?kind=qr`)
        .set(admin.auth)
        .expect(200);
      await a.http().delete(`/api/qr/${qr.body.id}/delete`).set(user.auth).expect(200);
      // what ShortCodes (links, bio pages, QR codes, imports) meets when the drawn alias is reserved
      expect(
        await a.db.query(
          `INSERT INTO links (user_id, kind, alias, url) VALUES ($1, 'link', $2, 'https://example.com/')
           ON CONFLICT DO NOTHING RETURNING id`,
          [user.id, code],
        ),
      ).toEqual([]);
      const l = await addLink(a, user, { url: 'https://example.com/rename' });
      await expect(
        a.db.query(`UPDATE links SET alias = $1 WHERE id = $2`, [code, l.id]),
      ).rejects.toMatchObject({ code: '23505', constraint: 'links_alias_takedown' });
      // released by the QR code's own id, once it is gone
      await a.http().put(`/api/admin/url/${qr.body.id}/enable?kind=qr`).set(admin.auth).expect(200);
      await a.db.query(`UPDATE links SET alias = $1 WHERE id = $2`, [code, l.id]);
    });

    it('403 for a user, 404 for an unknown link, 400 for a malformed id', async () => {
      const l = await addLink(a, user, { url: 'https://example.com/mine' });
      expectError(await a.http().put(`/api/admin/url/${l.id}/disable`).set(user.auth), 403);
      expect((await visit(a, `/${l.alias}`)).status).toBe(302);
      expectError(await a.http().put(`/api/admin/url/999999999/disable`).set(admin.auth), 404);
      expectError(await a.http().put(`/api/admin/url/abc/enable`).set(admin.auth), 400);
    });
  });

  it('a domain must not be added as a branded domain redirect target of our own hosts either', async () => {
    const own = await insertDomain(a, user.id);
    const pro = await a.db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
    const proUser = await createUser(a, { planId: pro[0].id });
    expectError(
      await a
        .http()
        .post('/api/domain/add')
        .set(proUser.auth)
        .send({ domain: `https://${uniq('d')}.brand.test`, redirectroot: `https://${own.host}/` }),
      400,
      /^redirectroot: must not point at this service/,
    );
    // the domain's own host, in another spelling, on add and update
    const host = `${uniq('d')}.brand.test`;
    expectError(
      await a
        .http()
        .post('/api/domain/add')
        .set(proUser.auth)
        .send({ domain: `https://${host}`, redirect404: `https://${host.toUpperCase()}../x` }),
      400,
      /^redirect404: must not point at this domain itself \(a loop\)$/,
    );
    const added = await a
      .http()
      .post('/api/domain/add')
      .set(proUser.auth)
      .send({ domain: `https://${host}` })
      .expect(200);
    expectError(
      await a
        .http()
        .put(`/api/domain/${added.body.id}/update`)
        .set(proUser.auth)
        .send({ redirectroot: `http://${host}./` }),
      400,
      /^redirectroot: must not point at/,
    );
  });
});
