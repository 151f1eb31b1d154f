import request from 'supertest';

import { runMigrations } from '@app/database';
import { cacheBucket, isCluster, keySlot, primaries } from '@app/redis';

import { cspHash } from '../apps/api/src/public/html';
import { LinkCache } from '../apps/api/src/link-cache/link-cache';
import { PublicRoutes } from '../apps/api/src/public/public-routes';
import {
  createTestApp,
  createUser,
  expectHtmlHeaders,
  TestApp,
  useSuite,
  withTestApp,
} from './support/app';
import {
  addLink,
  dateTimeIn,
  insertCampaign,
  insertDomain,
  insertOverlay,
  insertPixel,
  insertSplash,
  uniq,
} from './support/links';
import { TestPostgres, TestRedis } from './support/services';
import { insertLink } from './support/resources';
import { eventually } from './support/stats';

const MAIN = 'short.test';

/** The security headers every HTML page of the redirector carries. */
function expectHtmlPage(res: request.Response, status: number): string {
  const csp = expectHtmlHeaders(res, status);
  expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  // every inline block runs: the policy allows exactly the hashes of what the page carries
  if (res.text) {
    for (const [, body] of res.text.matchAll(/<(?:style|script)>([\s\S]*?)<\/(?:style|script)>/g)) {
      expect(csp).toContain(cspHash(body));
    }
    expect(res.text).not.toMatch(/\son[a-z]+=|style="/i);
  }
  return csp;
}

describe('public redirector', () => {
  const { t, user } = useSuite({ user: {} });

  const visit = (path: string, host = MAIN, app = t) =>
    app.http().get(path).set('Host', host).redirects(0);

  describe('plain links', () => {
    it('302 to the target with Location and Cache-Control, on the main host and without a Host we know', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/target?x=1' });
      const res = await visit(`/${l.alias}`).expect(302);
      expect(res.headers.location).toBe('https://example.com/target?x=1');
      expect(res.headers['cache-control']).toBe('private, max-age=90');
      expect(res.text).toBe('');
      // the query string of the short link is ignored; unknown hosts serve the main host's links
      expect((await visit(`/${l.alias}?utm=1`).expect(302)).headers.location).toBe(
        'https://example.com/target?x=1',
      );
      expect((await t.http().get(`/${l.alias}`).redirects(0).expect(302)).headers.location).toBe(
        'https://example.com/target?x=1',
      );
      expect((await visit(`/${l.alias}`, 'SHORT.TEST:8080').expect(302)).headers.location).toBe(
        'https://example.com/target?x=1',
      );
    });

    it('HEAD answers the same headers without a body', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/head' });
      const res = await t.http().head(`/${l.alias}`).set('Host', MAIN).redirects(0).expect(302);
      expect(res.headers.location).toBe('https://example.com/head');
      expect(res.headers['cache-control']).toBe('private, max-age=90');
      expect(res.text ?? '').toBe('');
    });

    it('aliases are case-sensitive; unknown and malformed aliases get the 404 page', async () => {
      const alias = uniq('Case');
      await addLink(t, user, { url: 'https://example.com/case', custom: alias });
      expectHtmlPage(await visit(`/${alias.toLowerCase()}`), 404);
      const res = await visit('/doesNotExist1');
      expect(expectHtmlPage(res, 404)).toMatch(/style-src 'sha256-/);
      expect(res.text).toContain('Link not found');
      expectHtmlPage(await visit('/a.b'), 404);
      expectHtmlPage(await visit('/%3Cscript%3E'), 404);
      expectHtmlPage(await visit(`/${alias}/`), 404);
    });

    it('the main host root goes to the API docs', async () => {
      const res = await visit('/').expect(302);
      expect(res.headers.location).toBe('/docs');
    });

    it('a percent-encoded target is sent as is', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/größe' });
      expect((await visit(`/${l.alias}`).expect(302)).headers.location).toBe(
        'https://example.com/gr%C3%B6%C3%9Fe',
      );
    });

    it('QR-code and bio short codes are not served at /<alias>', async () => {
      const code = uniq('qr');
      await insertLink(t, user.id, { alias: code, url: 'https://example.com/qr', kind: 'qr' });
      expectHtmlPage(await visit(`/${code}`), 404);
    });
  });

  describe('methods', () => {
    it('405 with Allow for other methods, and for POST on a link without password', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/' });
      for (const method of ['put', 'delete', 'patch', 'options'] as const) {
        const res = await t.http()[method](`/${l.alias}`).set('Host', MAIN);
        expectHtmlPage(res, 405);
        expect(res.headers.allow).toBe('GET, HEAD');
      }
      expectHtmlPage(
        await t.http().post(`/${l.alias}`).set('Host', MAIN).type('form').send('password=x'),
        405,
      );
      expectHtmlPage(await t.http().post('/').set('Host', MAIN), 405);
    });
  });

  describe('expiry', () => {
    it('410 page once expired (also for HEAD and POST)', async () => {
      const alias = uniq('exp');
      await t.db.query(
        `INSERT INTO links (user_id, alias, url, expires_at) VALUES ($1, $2, 'https://example.com/', now() - interval '1 second')`,
        [user.id, alias],
      );
      const res = await visit(`/${alias}`);
      expectHtmlPage(res, 410);
      expect(res.text).toContain('expired');
      expect((await t.http().head(`/${alias}`).set('Host', MAIN)).status).toBe(410);
    });

    it('a link expiring while cached turns 410 without any invalidation', async () => {
      const l = await addLink(t, user, {
        url: 'https://example.com/soon',
        expiry: dateTimeIn(2500),
      });
      await visit(`/${l.alias}`).expect(302);
      await new Promise((r) => setTimeout(r, 3000));
      expectHtmlPage(await visit(`/${l.alias}`), 410);
    });
  });

  describe('password', () => {
    it('GET shows the form; a wrong password is a 401 form with an error; the right one a 302', async () => {
      const l = await addLink(t, user, {
        url: 'https://example.com/secret',
        password: 'open sesame',
      });
      const form = await visit(`/${l.alias}`);
      const csp = expectHtmlPage(form, 200);
      // nothing of the target before the right password, not even its origin in the CSP
      expect(csp).toContain("form-action 'self' https: http:");
      expect(csp).not.toContain('example.com');
      expect(form.headers['cache-control']).toBe('no-store');
      expect(form.text).toMatch(/<form method="post"/);
      expect(form.text).toContain('name="password"');
      expect(form.text).not.toContain('example.com/secret');
      expect(form.text).not.toContain('Wrong password');

      const wrong = await t
        .http()
        .post(`/${l.alias}`)
        .set('Host', MAIN)
        .type('form')
        .send({ password: 'nope' });
      expectHtmlPage(wrong, 401);
      expect(wrong.text).toContain('Wrong password');
      expect(wrong.text).not.toContain('example.com/secret');
      expectHtmlPage(
        await t.http().post(`/${l.alias}`).set('Host', MAIN).type('form').send({}),
        401,
      );

      const right = await t
        .http()
        .post(`/${l.alias}`)
        .set('Host', MAIN)
        .type('form')
        .send({ password: 'open sesame' })
        .redirects(0);
      expect(right.status).toBe(302);
      expect(right.headers.location).toBe('https://example.com/secret');
    });

    it('refuses a form over 4 KB (413) and a body that is not a form (400)', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/secret', password: 'pw' });
      const big = await t
        .http()
        .post(`/${l.alias}`)
        .set('Host', MAIN)
        .type('form')
        .send(`password=${'x'.repeat(5000)}`);
      expectHtmlPage(big, 413);
      const json = await t.http().post(`/${l.alias}`).set('Host', MAIN).send({ password: 'pw' });
      expectHtmlPage(json, 400);
    });

    it('pauses a client after 10 wrong passwords (429), even for the right one', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/secret', password: 'right' });
      const post = (password: string) =>
        t
          .http()
          .post(`/${l.alias}`)
          .set('Host', MAIN)
          .set('X-Forwarded-For', '203.0.113.9')
          .type('form')
          .send({ password })
          .redirects(0);
      for (let i = 0; i < 10; i++) expect((await post(`wrong${i}`)).status).toBe(401);
      const paused = await post('right');
      expectHtmlPage(paused, 429);
      expect(paused.headers['retry-after']).toBe('600');
      // another client is not affected
      const other = await t
        .http()
        .post(`/${l.alias}`)
        .set('Host', MAIN)
        .set('X-Forwarded-For', '203.0.113.10')
        .type('form')
        .send({ password: 'right' })
        .redirects(0);
      expect(other.status).toBe(302);
    });
  });

  describe('branded domains', () => {
    it('serves its links by Host; root and unknown aliases go to redirectroot / redirect404', async () => {
      const domain = await insertDomain(t, user.id, {
        root: 'https://brand.example/home',
        notFound: 'https://brand.example/404',
      });
      const l = await addLink(t, user, { url: 'https://example.com/branded', domain: domain.id });
      expect(l.shorturl).toBe(`${domain.url}/${l.alias}`);
      expect((await visit(`/${l.alias}`, domain.host).expect(302)).headers.location).toBe(
        'https://example.com/branded',
      );
      expect(
        (await visit(`/${l.alias}`, `${domain.host.toUpperCase()}:443`).expect(302)).headers
          .location,
      ).toBe('https://example.com/branded');
      const root = await visit('/', domain.host).expect(302);
      expect(root.headers.location).toBe('https://brand.example/home');
      const unknown = await visit('/nothing-here', domain.host).expect(302);
      expect(unknown.headers.location).toBe('https://brand.example/404');
      expect(unknown.headers['cache-control']).toBe('no-store');
      expect((await visit('/r/some-slug', domain.host).expect(302)).headers.location).toBe(
        'https://brand.example/404',
      );
      // a branded link is not served on the main host, nor a main-host link on the brand
      expectHtmlPage(await visit(`/${l.alias}`, MAIN), 404);
      const plain = await addLink(t, user, { url: 'https://example.com/plain' });
      expect((await visit(`/${plain.alias}`, domain.host).expect(302)).headers.location).toBe(
        'https://brand.example/404',
      );
    });

    it('without redirectroot / redirect404 the 404 page answers', async () => {
      const domain = await insertDomain(t, user.id);
      expectHtmlPage(await visit('/', domain.host), 404);
      expectHtmlPage(await visit('/missing', domain.host), 404);
    });
  });

  describe('campaign rotator and list page', () => {
    it('GET /r/<slug> forwards to the campaign links in turn, by link id, never cached', async () => {
      const slug = uniq('rot-').toLowerCase();
      const campaign = await insertCampaign(t, user.id, { slug });
      const domain = await insertDomain(t, user.id);
      const links = [
        await addLink(t, user, { url: 'https://example.com/1', campaign }),
        await addLink(t, user, { url: 'https://example.com/2', campaign, domain: domain.id }),
        await addLink(t, user, { url: 'https://example.com/3', campaign }),
      ];
      await addLink(t, user, { url: 'https://example.com/not-in-campaign' });
      const seen: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await visit(`/r/${slug}`).expect(302);
        expect(res.headers['cache-control']).toBe('no-store');
        seen.push(res.headers.location);
      }
      const order = links.map((l) => l.shorturl);
      expect(seen).toEqual([...order, ...order]);
      expect(order[1]).toBe(`${domain.url}/${links[1].alias}`);
    });

    it('404 for an unknown slug or a campaign without links', async () => {
      const slug = uniq('empty-').toLowerCase();
      await insertCampaign(t, user.id, { slug });
      expectHtmlPage(await visit(`/r/${slug}`), 404);
      expectHtmlPage(await visit('/r/no-such-campaign'), 404);
    });

    it('GET /u/<slug>-<id> lists a public campaign (escaped); private, wrong slug or unknown is a 404', async () => {
      const slug = uniq('list-').toLowerCase();
      const campaign = await insertCampaign(t, user.id, {
        slug,
        public: true,
        name: 'Spring <b>sale</b>',
      });
      const a = await addLink(t, user, {
        url: 'https://example.com/a',
        campaign,
        title: 'First <script>alert(1)</script>',
      });
      const b = await addLink(t, user, { url: 'https://example.com/b', campaign });
      const res = await visit(`/u/${slug}-${campaign}`);
      expectHtmlPage(res, 200);
      expect(res.text).toContain('Spring &lt;b&gt;sale&lt;/b&gt;');
      expect(res.text).toContain('First &lt;script&gt;alert(1)&lt;/script&gt;');
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).toContain(`href="${a.shorturl}"`);
      expect(res.text).toContain(`href="${b.shorturl}"`);
      expect(res.text).not.toContain('https://example.com/a');

      expectHtmlPage(await visit(`/u/wrong-${campaign}`), 404);
      const hidden = await insertCampaign(t, user.id, {
        slug: uniq('priv-').toLowerCase(),
        public: false,
      });
      await addLink(t, user, { url: 'https://example.com/p', campaign: hidden });
      const [row] = await t.db.query('SELECT slug FROM campaigns WHERE id = $1', [hidden]);
      expectHtmlPage(await visit(`/u/${row.slug}-${hidden}`), 404);
      expectHtmlPage(await visit('/u/nothing-99999999'), 404);
      // without a slug, the name part is free
      const unslugged = await insertCampaign(t, user.id, { name: 'No slug', public: true });
      expectHtmlPage(await visit(`/u/no-slug-${unslugged}`), 200);
    });
  });

  describe('pages: pixels, splash, frame, overlay', () => {
    it('a link with pixels gets a page with each vendor tag, then forwards', async () => {
      const fb = await insertPixel(t, user.id, 'vendor03pixel', '998877665544');
      const bing = await insertPixel(t, user.id, 'vendor10', 'abc.DEF:1');
      const l = await addLink(t, user, { url: 'https://example.com/pixels', pixels: [fb, bing] });
      const res = await visit(`/${l.alias}`);
      const csp = expectHtmlPage(res, 200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toContain(
        'src="https://www.facebook.com/tr?id=998877665544&amp;ev=PageView&amp;noscript=1"',
      );
      expect(res.text).toContain('src="https://bat.bing.com/action/0?ti=abc.DEF%3A1&amp;Ver=2"');
      expect(res.text).toContain(
        '<meta http-equiv="refresh" content="2;url=https://example.com/pixels">',
      );
      expect(res.text).toContain('id="go" href="https://example.com/pixels"');
      expect(csp).toContain('img-src https://www.facebook.com https://bat.bing.com');
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(csp).not.toContain('frame-src');
    });

    it('a pixel tag that fails the check is left out of the page', async () => {
      const bad = await insertPixel(t, user.id, 'vendor03pixel', '"><script>alert(1)</script>');
      const l = await addLink(t, user, { url: 'https://example.com/bad-pixel', pixels: [bad] });
      const res = await visit(`/${l.alias}`);
      expectHtmlPage(res, 200);
      expect(res.text).not.toContain('alert(1)');
      expect(res.text).not.toContain('facebook');
    });

    it('a splash link shows the newest splash page with its countdown', async () => {
      const u = await createUser(t);
      await insertSplash(t, u.id, { title: 'Old', countdown: 9 });
      await insertSplash(t, u.id, {
        title: 'Hello <i>you</i>',
        message: 'Wait & see',
        countdown: 3,
        imageUrl: 'https://img.example/a.png',
      });
      const l = await addLink(t, u, { url: 'https://example.com/after-splash', type: 'splash' });
      const res = await visit(`/${l.alias}`);
      const csp = expectHtmlPage(res, 200);
      expect(res.text).toContain('<h1>Hello &lt;i&gt;you&lt;/i&gt;</h1>');
      expect(res.text).toContain('Wait &amp; see');
      expect(res.text).toContain('data-seconds="3"');
      expect(res.text).toContain('content="3;url=https://example.com/after-splash"');
      expect(res.text).toContain('<img class="hero" src="https://img.example/a.png"');
      expect(csp).toContain('img-src https://img.example');
      expect(res.text).not.toContain('Old');
    });

    it('a frame link frames the target; the script in its title is escaped', async () => {
      const l = await addLink(t, user, {
        url: 'https://framed.example/page',
        type: 'frame',
        title: '<script>alert("x")</script>',
      });
      const res = await visit(`/${l.alias}`);
      const csp = expectHtmlPage(res, 200);
      expect(csp).toContain('frame-src https://framed.example');
      expect(res.text).toContain('<iframe class="target" src="https://framed.example/page"');
      expect(res.text).toContain(
        '<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</title>',
      );
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).not.toContain('class="overlay"');
    });

    it('an overlay link frames the target with the overlay box (escaped, colours checked)', async () => {
      const u = await createUser(t);
      const overlay = await insertOverlay(t, u.id, {
        message: 'Join <b>now</b>',
        buttonText: 'Sign "up"',
        buttonLink: 'https://cta.example/join',
        bgColor: 'x;}*{}',
      });
      const l = await addLink(t, u, { url: 'https://framed.example/o', type: overlay });
      const res = await visit(`/${l.alias}`);
      const csp = expectHtmlPage(res, 200);
      expect(csp).toContain('frame-src https://framed.example');
      expect(csp.match(/style-src ([^;]+)/)?.[1].split(' ')).toHaveLength(3);
      expect(res.text).toContain('<aside class="overlay"');
      expect(res.text).toContain('Join &lt;b&gt;now&lt;/b&gt;');
      expect(res.text).toContain('href="https://cta.example/join"');
      expect(res.text).toContain('Sign &quot;up&quot;');
      expect(res.text).not.toContain('x;}*{}');
      expect(res.text).toContain('background:#ffffff');
    });
  });

  describe('registered public routes', () => {
    it('a prefix answers 404 until a route is registered; a registered route is called; its failures become a 500 page (the QR module registers /q/ this way)', async () => {
      const code = uniq('c');
      expectHtmlPage(await visit(`/zz/${code}`), 404);
      const routes = t.app.get(PublicRoutes);
      const seen: string[] = [];
      routes.register('/zz/', async (req, res, ctx) => {
        seen.push(`${req.method} ${ctx.path} ${ctx.host} ${ctx.domain}`);
        if (ctx.path.endsWith('/boom')) throw new Error('boom with secret SQL SELECT');
        res.writeHead(204).end();
      });
      expect(() => routes.register('/zz/', () => undefined)).toThrow(/already registered/);
      expect(() => routes.register('/r/', () => undefined)).toThrow();
      expect(() => routes.register('/q/', () => undefined)).toThrow(/already registered/);
      await visit(`/zz/${code}?x=1`).expect(204);
      expect(seen).toEqual([`GET /zz/${code} short.test null`]);
      const boom = await visit('/zz/boom');
      expectHtmlPage(boom, 500);
      expect(boom.text).not.toMatch(/boom|SELECT|at .*\.ts/);
      expectHtmlPage(await t.http().post('/zz/x').set('Host', MAIN), 405);
    });
  });

  describe('cache invalidation', () => {
    it('an update or deletion through the API is seen at once, even though the link is cached', async () => {
      const l = await addLink(t, user, { url: 'https://example.com/v1' });
      await visit(`/${l.alias}`).expect(302);
      // a change behind the cache's back is not seen: the link is served from the caches
      await t.db.query(`UPDATE links SET url = 'https://example.com/sneaky' WHERE id = $1`, [l.id]);
      expect((await visit(`/${l.alias}`)).headers.location).toBe('https://example.com/v1');
      await t
        .http()
        .put(`/api/url/${l.id}/update`)
        .set(user.auth)
        .send({ url: 'https://example.com/v2' })
        .expect(200);
      expect((await visit(`/${l.alias}`)).headers.location).toBe('https://example.com/v2');
      // a new alias answers at once, the old one is gone
      const renamed = uniq('ren');
      await t
        .http()
        .put(`/api/url/${l.id}/update`)
        .set(user.auth)
        .send({ custom: renamed, password: 'pw' })
        .expect(200);
      expectHtmlPage(await visit(`/${l.alias}`), 404);
      expect(expectHtmlPage(await visit(`/${renamed}`), 200)).toContain('form-action');
      await t.http().delete(`/api/url/${l.id}/delete`).set(user.auth).expect(200);
      expectHtmlPage(await visit(`/${renamed}`), 404);
    });

    it('without an in-process cache, concurrent redirects read Redis in one MGET per turn, each getting its own link', async () => {
      await withTestApp({ LINK_CACHE_SIZE: '0' }, async (cold) => {
        const links = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            addLink(t, user, { url: `https://example.com/m${i}` }),
          ),
        );
        const missing = uniq('none');
        // first visits fill Redis from Postgres (and the missing alias as "missing")
        for (const l of links) await visit(`/${l.alias}`, MAIN, cold).expect(302);
        expectHtmlPage(await visit(`/${missing}`, MAIN, cold), 404);
        // calls of each read command, summed over every primary
        const reads = async () => {
          const calls = { get: 0, mget: 0 };
          for (const node of primaries(cold.redis.client)) {
            const stats = await node.info('commandstats');
            for (const c of ['get', 'mget'] as const)
              calls[c] += Number(new RegExp(`cmdstat_${c}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
          }
          return calls;
        };
        const client = cold.redis.client;
        // on a cluster: what went through the cluster client (nothing, unless redirected), and
        // how often each primary's socket was corked to write its MGETs together
        const viaCluster = isCluster(client)
          ? [jest.spyOn(client, 'get'), jest.spyOn(client, 'mget')]
          : null;
        const corks = isCluster(client)
          ? primaries(client).map((node) => jest.spyOn(node.stream, 'cork'))
          : [];
        const before = await reads();
        const cache = cold.app.get(LinkCache);
        const resolved = await Promise.all([
          ...links.map((l) => cache.resolve(l.alias)),
          cache.resolve(missing),
        ]);
        const after = await reads();
        if (!viaCluster) expect(after).toEqual({ get: before.get, mget: before.mget + 1 });
        else {
          // a MGET per slot (the cache's keys share CACHE_BUCKETS slots: 41 keys, at most 16
          // slots), sent on each primary's own connection, a primary's written together
          const keys = [...links.map((l) => l.alias), missing].map((a) =>
            cold.redis.slotKey(['link', cacheBucket(a)], a),
          );
          const slots = new Set(keys.map(keySlot)).size;
          expect(slots).toBeLessThan(keys.length);
          expect(after.get + after.mget - before.get - before.mget).toBe(slots);
          for (const spy of viaCluster) expect(spy).not.toHaveBeenCalled();
          const corked = corks.map((spy) => spy.mock.calls.length);
          expect(Math.max(...corked)).toBe(1);
          expect(corked.reduce((a, b) => a + b)).toBeGreaterThan(0);
          for (const spy of [...viaCluster, ...corks]) spy.mockRestore();
        }
        expect(resolved.map((r) => r?.url)).toEqual([
          ...links.map((_, i) => `https://example.com/m${i}`),
          undefined,
        ]);
        expect(resolved[links.length]).toBeNull();
        // and through HTTP, all at once
        const answers = await Promise.all(links.map((l) => visit(`/${l.alias}`, MAIN, cold)));
        expect(answers.map((r) => r.headers.location)).toEqual(
          links.map((_, i) => `https://example.com/m${i}`),
        );
      });
    });

    it('a custom alias visited before it existed answers once created', async () => {
      const alias = uniq('later');
      expectHtmlPage(await visit(`/${alias}`), 404);
      await addLink(t, user, { url: 'https://example.com/later', custom: alias });
      expect((await visit(`/${alias}`).expect(302)).headers.location).toBe(
        'https://example.com/later',
      );
    });

    it('a second api instance drops its cached copy when the first one changes or deletes the link', async () => {
      await withTestApp({}, async (t2) => {
        const l = await addLink(t, user, { url: 'https://example.com/one' });
        expect((await visit(`/${l.alias}`, MAIN, t2).expect(302)).headers.location).toBe(
          'https://example.com/one',
        );
        // t2 now serves the link from its own memory
        await t.db.query(`UPDATE links SET url = 'https://example.com/sneaky' WHERE id = $1`, [
          l.id,
        ]);
        await t.redis.client.del(t.redis.key('link', l.alias));
        expect((await visit(`/${l.alias}`, MAIN, t2)).headers.location).toBe(
          'https://example.com/one',
        );

        await t
          .http()
          .put(`/api/url/${l.id}/update`)
          .set(user.auth)
          .send({ url: 'https://example.com/two' })
          .expect(200);
        await eventually(
          async () =>
            (await visit(`/${l.alias}`, MAIN, t2)).headers.location === 'https://example.com/two',
          3000,
          20,
        );

        await t.http().delete(`/api/url/${l.id}/delete`).set(user.auth).expect(200);
        await eventually(
          async () => (await visit(`/${l.alias}`, MAIN, t2)).status === 404,
          3000,
          20,
        );
      });
    });
  });
  describe('invalidation from the other features', () => {
    it('a branded domain added, changed or deleted through its API is seen at once', async () => {
      const u = await createUser(t);
      const host = `${uniq('d')}.brand.test`;
      // visited before it exists: cached as "not a branded domain"
      expect((await visit('/', host).expect(302)).headers.location).toBe('/docs');
      const added = await t
        .http()
        .post('/api/domain/add')
        .set(u.auth)
        .send({ domain: `https://${host}`, redirectroot: 'https://brand.example/a' })
        .expect(200);
      const domainId = added.body.id;
      expect((await visit('/', host).expect(302)).headers.location).toBe('https://brand.example/a');
      await t
        .http()
        .put(`/api/domain/${domainId}/update`)
        .set(u.auth)
        .send({ redirectroot: 'https://brand.example/b' })
        .expect(200);
      expect((await visit('/', host).expect(302)).headers.location).toBe('https://brand.example/b');

      const l = await addLink(t, u, { url: 'https://example.com/on-brand', domain: domainId });
      expect((await visit(`/${l.alias}`, host).expect(302)).headers.location).toBe(
        'https://example.com/on-brand',
      );
      expectHtmlPage(await visit(`/${l.alias}`, MAIN), 404);
      await t.http().delete(`/api/domain/${domainId}/delete`).set(u.auth).expect(200);
      // its links fall back to the main host
      expect((await visit(`/${l.alias}`, MAIN).expect(302)).headers.location).toBe(
        'https://example.com/on-brand',
      );
      expect((await visit('/', host).expect(302)).headers.location).toBe('/docs');
    });

    it("a pixel's new tag, and its deletion, reach the cached link page", async () => {
      const u = await createUser(t);
      const pixel = await insertPixel(t, u.id, 'vendor03pixel', 'first111');
      const l = await addLink(t, u, { url: 'https://example.com/px', pixels: [pixel] });
      expect((await visit(`/${l.alias}`)).text).toContain('id=first111');
      await t
        .http()
        .put(`/api/pixel/${pixel}/update`)
        .set(u.auth)
        .send({ tag: 'second222' })
        .expect(200);
      const page = await visit(`/${l.alias}`);
      expect(page.text).toContain('id=second222');
      expect(page.text).not.toContain('first111');
      await t.http().delete(`/api/pixel/${pixel}/delete`).set(u.auth).expect(200);
      expect((await visit(`/${l.alias}`).expect(302)).headers.location).toBe(
        'https://example.com/px',
      );
    });

    it("a deleted user's links stop answering at once", async () => {
      const admin = await createUser(t, { admin: true });
      const u = await createUser(t);
      const l = await addLink(t, u, { url: 'https://example.com/owner' });
      await visit(`/${l.alias}`).expect(302);
      await t.http().delete(`/api/user/${u.id}/delete`).set(admin.auth).expect(200);
      expectHtmlPage(await visit(`/${l.alias}`), 404);
    });
  });

  describe('dependencies down', () => {
    it('Redis down: links still resolve from Postgres (fail open) and invalidation is applied locally', async () => {
      const redis = await TestRedis.start();
      const r = await createTestApp({ REDIS_URL: redis.url, REDIS_CLUSTER_NODES: '' });
      try {
        const u = await createUser(r);
        const cached = await addLink(r, u, { url: 'https://example.com/cached' });
        await visit(`/${cached.alias}`, MAIN, r).expect(302);
        const cold = await addLink(r, u, { url: 'https://example.com/cold' });
        await redis.stop();
        expect((await visit(`/${cached.alias}`, MAIN, r).expect(302)).headers.location).toBe(
          'https://example.com/cached',
        );
        expect((await visit(`/${cold.alias}`, MAIN, r).expect(302)).headers.location).toBe(
          'https://example.com/cold',
        );
        expectHtmlPage(await visit('/unknownAlias', MAIN, r), 404);
        await r
          .http()
          .put(`/api/url/${cached.id}/update`)
          .set(u.auth)
          .send({ url: 'https://example.com/changed' })
          .expect(200);
        expect((await visit(`/${cached.alias}`, MAIN, r).expect(302)).headers.location).toBe(
          'https://example.com/changed',
        );
        await redis.start();
        // closed only once it is connected again: an app stopped while its clients are still
        // reconnecting has commands in their offline queues rejected as it quits (seen as an
        // unhandled "Connection is closed." in 2 of the last full runs under load)
        const app = r;
        await eventually(async () => app.redis.ready, 15_000, 50);
      } finally {
        await r.close();
        await redis.stop();
      }
    }, 60_000);

    it('Postgres down: cached links keep redirecting; others get the 503 page, then it recovers', async () => {
      const pg = await TestPostgres.start();
      let r: TestApp | undefined;
      try {
        const url = pg.url('linkmgmt_redirector_fault');
        await runMigrations(url);
        r = await createTestApp({
          DATABASE_URL: url,
          REDIS_PREFIX: `${process.env.REDIS_PREFIX}pg`.slice(0, 32),
        });
        const u = await createUser(r);
        const cached = await addLink(r, u, { url: 'https://example.com/cached' });
        const cold = await addLink(r, u, { url: 'https://example.com/cold' });
        await visit(`/${cached.alias}`, MAIN, r).expect(302);
        await pg.stop();
        expect((await visit(`/${cached.alias}`, MAIN, r).expect(302)).headers.location).toBe(
          'https://example.com/cached',
        );
        await r.redis.client.del(r.redis.key('link', cold.alias));
        const down = await visit(`/${cold.alias}`, MAIN, r);
        expectHtmlPage(down, 503);
        expect(down.headers['retry-after']).toBe('5');
        expect(down.text).not.toMatch(/ECONNREFUSED|SELECT|postgres/i);
        await pg.start();
        const app = r;
        await eventually(
          async () => (await visit(`/${cold.alias}`, MAIN, app)).status === 302,
          20_000,
          250,
        );
      } finally {
        await r?.close();
        await pg.destroy();
      }
    }, 90_000);
  });
});
