import request from 'supertest';

import {
  createPlan,
  createUser,
  expectError,
  TestUser,
  useSuite,
  withTestApp,
} from './support/app';
import { addLink, dateTimeIn, insertCampaign, linkCount, NO_OPTIONS, uniq } from './support/links';
import { BROWSER_UA, eventually, foldStats, PREVIEW_UA } from './support/stats';

const MAIN = 'short.test';

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  windows: BROWSER_UA,
  macos:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
};

/** Every link option set at once, as sent. */
const OPTIONS: Record<string, unknown> = {
  geotarget: [
    { location: 'de', link: 'https://example.de/' },
    { location: 'United Kingdom', link: 'https://example.co.uk/' },
  ],
  devicetarget: [{ device: 'iPhone', link: 'https://example.com/ios' }],
  languagetarget: [{ language: 'FR', link: 'https://example.fr/' }],
  deeplink: { apple: 'myapp://item/1', google: 'intent://item/1#Intent;scheme=myapp;end' },
  parameters: [{ name: 'utm_source', value: 'news' }],
  forwardquery: true,
  metatitle: 'Title',
  metadescription: 'Description',
  metaimage: 'https://img.example/a.png',
  status: 'private',
  clicklimit: 5,
  expirationredirect: 'https://example.com/over',
  fallbackurl: 'https://example.com/fallback',
};
/** OPTIONS as details echo them: normalised. */
const ECHOED = {
  ...OPTIONS,
  geotarget: [
    { location: 'DE', link: 'https://example.de/' },
    { location: 'GB', link: 'https://example.co.uk/' },
  ],
  devicetarget: [{ device: 'iphone', link: 'https://example.com/ios' }],
  languagetarget: [{ language: 'fr', link: 'https://example.fr/' }],
};
/** Each of OPTIONS as `value` (null removes an option). */
const everyOption = (value: unknown) =>
  Object.fromEntries(Object.keys(OPTIONS).map((f) => [f, value]));
/** Each of OPTIONS as details show it unset. */
const UNSET = Object.fromEntries(
  Object.keys(OPTIONS).map((f) => [f, NO_OPTIONS[f as keyof typeof NO_OPTIONS]]),
);

/** Addresses the offline GeoIP data places in known countries (sent as X-Forwarded-For from loopback). */
const IP = { us: '8.8.8.8', de: '193.99.144.80', gb: '212.58.244.1', fr: '80.67.169.12' };

describe('link options', () => {
  const { t, pro } = useSuite({ pro: { plan: 'Pro' } });

  const visit = (
    alias: string,
    headers: Record<string, string> = {},
    app = t,
    query = '',
  ): Promise<request.Response> => {
    const req = app
      .http()
      .get(`/${alias}${query}`)
      .set('Host', MAIN)
      .set('User-Agent', headers['user-agent'] ?? BROWSER_UA)
      .redirects(0);
    for (const [k, v] of Object.entries(headers)) if (k !== 'user-agent') req.set(k, v);
    return req;
  };
  const location = async (alias: string, headers: Record<string, string> = {}, query = '') => {
    const res = await visit(alias, headers, t, query);
    expect(res.status).toBe(302);
    return res.headers.location as string;
  };
  /** Each visit (by its headers) is sent on to its location: rows in order, each named by its headers. */
  const expectLocations = async (alias: string, rows: Array<[Record<string, string>, string]>) => {
    for (const [headers, expected] of rows)
      expect([headers, await location(alias, headers)]).toEqual([headers, expected]);
  };
  const details = async (u: TestUser, id: number) =>
    (await t.http().get(`/api/url/${id}`).set(u.auth).expect(200)).body.details;
  const add = (u: TestUser, body: Record<string, unknown>) =>
    t
      .http()
      .post('/api/url/add')
      .set(u.auth)
      .send({ url: 'https://example.com/', ...body });
  const update = (u: TestUser, id: number, body: Record<string, unknown>) =>
    t.http().put(`/api/url/${id}/update`).set(u.auth).send(body);
  const bulk = (u: TestUser, body: object) => t.http().post('/api/url/bulk').set(u.auth).send(body);

  describe('fields: accepted, validated field by field, echoed, removed with null', () => {
    it('stores every option normalised and echoes it in details', async () => {
      const res = await add(pro, OPTIONS);
      expect(res.status).toBe(200);
      const d = await details(pro, res.body.id);
      expect(d).toMatchObject(ECHOED);

      // null removes each option
      await update(pro, res.body.id, everyOption(null)).expect(200);
      expect(await details(pro, res.body.id)).toMatchObject(UNSET);
    });

    it('a link without options shows them unset', async () => {
      const l = await addLink(t, pro, { url: 'https://example.com/plain' });
      const {
        metatitle: _title,
        metadescription: _description,
        metaimage: _image,
        ...unset
      } = UNSET;
      expect(await details(pro, l.id)).toMatchObject(unset);
    });

    it.each([
      [
        { geotarget: [{ location: 'XX', link: 'https://a.example/' }] },
        /^geotarget\[0\]\.location: /,
      ],
      [{ geotarget: [{ location: 'DE' }] }, /^geotarget\[0\]\.link: /],
      [
        {
          geotarget: [
            { location: 'DE', link: 'https://a.example/' },
            { location: 'FR', link: 'https://b.example/' },
            { location: 'Narnia', link: 'https://c.example/' },
          ],
        },
        /^geotarget\[2\]\.location: must be an ISO 3166-1 alpha-2 code/,
      ],
      [{ geotarget: [{ location: 'DE', link: 'ftp://a.example/' }] }, /^geotarget\[0\]\.link: /],
      [
        { geotarget: [{ location: 'DE', link: 'https://a.example/', x: 1 }] },
        /^geotarget\[0\]\.x: unknown field/,
      ],
      [{ geotarget: ['DE'] }, /^geotarget\[0\]: must be an object/],
      [{ geotarget: 'DE' }, /^geotarget: /],
      [
        {
          geotarget: Array.from({ length: 51 }, () => ({
            location: 'DE',
            link: 'https://a.example/',
          })),
        },
        /^geotarget: /,
      ],
      [
        { devicetarget: [{ device: 'blackberry', link: 'https://a.example/' }] },
        /^devicetarget\[0\]\.device: must be one of iphone/,
      ],
      [
        {
          devicetarget: Array.from({ length: 21 }, () => ({
            device: 'mobile',
            link: 'https://a.example/',
          })),
        },
        /^devicetarget: /,
      ],
      [
        { languagetarget: [{ language: 'english', link: 'https://a.example/' }] },
        /^languagetarget\[0\]\.language: /,
      ],
      [{ deeplink: [] }, /^deeplink: must be an object/],
      [{ deeplink: ['myapp://item/1'] }, /^deeplink: must be an object/],
      [{ deeplink: { apple: 'javascript:alert(1)' } }, /^deeplink\.apple: /],
      [{ deeplink: { google: 'data:text/html,x' } }, /^deeplink\.google: /],
      // browsers' own schemes, in any letter case, and intents that lead to them
      [{ deeplink: { apple: 'JAVASCRIPT:alert(1)' } }, /^deeplink\.apple: the javascript: scheme/],
      [
        { deeplink: { google: 'Data:text/html,<script>alert(1)</script>' } },
        /^deeplink\.google: the data: scheme/,
      ],
      [
        { deeplink: { apple: 'View-Source:https://example.com/' } },
        /^deeplink\.apple: the view-source: scheme/,
      ],
      [{ deeplink: { apple: 'X-Safari-https://example.com/' } }, /^deeplink\.apple: the x-safari-/],
      [{ deeplink: { google: 'CHROME://settings' } }, /^deeplink\.google: the chrome: scheme/],
      [{ deeplink: { google: 'MS-MSDT:-id%20PCWDiagnostic' } }, /^deeplink\.google: the ms-msdt:/],
      [
        { deeplink: { google: 'FileSystem:https://e.example/x' } },
        /^deeplink\.google: the filesys/,
      ],
      [
        { deeplink: { apple: 'intent://x#Intent;scheme=myapp;end' } },
        /^deeplink\.apple: intent: links are for Android/,
      ],
      [
        { deeplink: { google: 'intent://x#Intent;scheme=JavaScript;end' } },
        /^deeplink\.google: the JavaScript: scheme/,
      ],
      [
        {
          deeplink: {
            google: 'intent://x#Intent;S.browser_fallback_url=javascript%3Aalert(1);end',
          },
        },
        /^deeplink\.google: S\.browser_fallback_url must be an absolute http\(s\) URL$/,
      ],
      // a host of letters, digits, - and . only (after IDNA): it reaches headers, HTML and CSP
      [{ url: 'https://a_b.example/' }, /^url: must have a host of letters, digits, - and \./],
      [{ url: "https://x.example;'unsafe-inline'/" }, /^url: must have a host of letters/],
      [{ url: 'https://a..b.example/' }, /^url: must have a host of letters/],
      [
        { geotarget: [{ location: 'DE', link: 'https://a*b.example/' }] },
        /^geotarget\[0\]\.link: must have a host of letters/,
      ],
      [{ deeplink: { apple: 'https://a"b.example/' } }, /^deeplink\.apple: must have a host/],
      [{ expirationredirect: 'https://a%25b.example/' }, /^expirationredirect: /],
      [{ deeplink: { windows: 'x://y' } }, /^deeplink\.windows: unknown field/],
      [{ deeplink: 'myapp://x' }, /^deeplink: /],
      [{ parameters: [{ name: '', value: 'x' }] }, /^parameters\[0\]\.name: /],
      [{ parameters: [{ name: 'a', value: 1 }] }, /^parameters\[0\]\.value: /],
      [
        { parameters: Array.from({ length: 21 }, (_, i) => ({ name: `p${i}`, value: 'x' })) },
        /^parameters: /,
      ],
      [{ forwardquery: 'yes' }, /^forwardquery: /],
      [{ metatitle: 'x'.repeat(201) }, /^metatitle: /],
      [{ metadescription: 'x'.repeat(501) }, /^metadescription: /],
      [{ metaimage: 'not a url' }, /^metaimage: /],
      [{ status: 'hidden' }, /^status: /],
      [{ clicklimit: 0 }, /^clicklimit: /],
      [{ clicklimit: 1.5 }, /^clicklimit: /],
      [{ clicklimit: '10' }, /^clicklimit: /],
      [{ expirationredirect: 'javascript:alert(1)' }, /^expirationredirect: /],
      [{ fallbackurl: 'javascript:alert(1)' }, /^fallbackurl: /],
      [{ fallbackurl: 'https://a%25b.example/' }, /^fallbackurl: /],
      [{ fallbackurl: 42 }, /^fallbackurl: /],
    ])('400 naming the field: %#', async (body, message) => {
      const before = await linkCount(t, pro.id);
      expectError(await add(pro, body), 400, message);
      const l = await addLink(t, pro, { url: 'https://example.com/v' });
      expectError(await update(pro, l.id, body), 400, message);
      expect(await linkCount(t, pro.id)).toBe(before + 1);
    });

    it.each([
      ['geotarget', { geotarget: [{ location: 'DE', link: 'https://a.example/' }] }, 'geo'],
      [
        'languagetarget',
        { languagetarget: [{ language: 'de', link: 'https://a.example/' }] },
        'geo',
      ],
      [
        'devicetarget',
        { devicetarget: [{ device: 'mobile', link: 'https://a.example/' }] },
        'device',
      ],
      ['deeplink', { deeplink: { apple: 'myapp://x' } }, 'device'],
      ['parameters', { parameters: [{ name: 'a', value: 'b' }] }, 'parameters'],
    ])(
      '%s needs the plan feature (403 naming it); removing it does not',
      async (_f, body, feature) => {
        const free = await createUser(t);
        expectError(await add(free, body), 403, new RegExp(`"${feature}" feature`));
        const l = await addLink(t, free, { url: 'https://example.com/f' });
        expectError(await update(free, l.id, body), 403, new RegExp(`"${feature}" feature`));
        const field = Object.keys(body)[0];
        await update(free, l.id, { [field]: null }).expect(200);
        await update(free, l.id, { [field]: field === 'deeplink' ? null : [] }).expect(200);
      },
    );
  });

  describe('targeting on the redirect path', () => {
    it('device rules: iPhone, Android, Windows and macOS user agents, first matching rule wins', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/default',
        devicetarget: [
          { device: 'iphone', link: 'https://example.com/iphone' },
          { device: 'mobile', link: 'https://example.com/mobile' },
          { device: 'android', link: 'https://example.com/android-never' },
          { device: 'windows', link: 'https://example.com/windows' },
          { device: 'tablet', link: 'https://example.com/tablet' },
        ],
      });
      await expectLocations(l.alias, [
        [{ 'user-agent': UA.iphone }, 'https://example.com/iphone'],
        // android is a mobile: the earlier "mobile" rule wins
        [{ 'user-agent': UA.android }, 'https://example.com/mobile'],
        [{ 'user-agent': UA.windows }, 'https://example.com/windows'],
        [{ 'user-agent': UA.ipad }, 'https://example.com/tablet'],
        [{ 'user-agent': UA.macos }, 'https://example.com/default'],
      ]);
    });

    it('a deep link stored before its scheme was refused is passed over', async () => {
      const l = await addLink(t, pro, { url: 'https://example.com/default' });
      await t.db.query(`UPDATE links SET deep_link = $1 WHERE id = $2`, [
        {
          apple: 'View-Source:https://example.com/',
          google: 'intent://x#Intent;scheme=JavaScript;end',
        },
        l.id,
      ]);
      await expectLocations(l.alias, [
        [{ 'user-agent': UA.iphone }, 'https://example.com/default'],
        [{ 'user-agent': UA.android }, 'https://example.com/default'],
      ]);
    });

    it('country rules through a trusted X-Forwarded-For; unknown addresses get the link', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/world',
        geotarget: [
          { location: 'DE', link: 'https://example.de/' },
          { location: 'united kingdom', link: 'https://example.co.uk/' },
          { location: 'DE', link: 'https://example.de/second-never' },
        ],
      });
      await expectLocations(l.alias, [
        [{ 'x-forwarded-for': IP.de }, 'https://example.de/'],
        [{ 'x-forwarded-for': IP.gb }, 'https://example.co.uk/'],
        [{ 'x-forwarded-for': IP.us }, 'https://example.com/world'],
        [{ 'x-forwarded-for': '10.0.0.1' }, 'https://example.com/world'],
      ]);
    });

    it('language rules in the visitor’s order of preference (q-values)', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/en',
        languagetarget: [
          { language: 'de', link: 'https://example.com/de' },
          { language: 'fr', link: 'https://example.com/fr' },
        ],
      });
      await expectLocations(l.alias, [
        [{ 'accept-language': 'fr-CH, fr;q=0.9, de;q=0.8' }, 'https://example.com/fr'],
        [{ 'accept-language': 'de;q=0.5, fr;q=0.4, en;q=0.9' }, 'https://example.com/de'],
        [{ 'accept-language': 'it, es;q=0.5' }, 'https://example.com/en'],
        [{}, 'https://example.com/en'],
      ]);
    });

    it('order of precedence: deep link, then device, then country, then language', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/default',
        deeplink: { apple: 'myapp://open', google: 'intent://open#Intent;scheme=myapp;end' },
        devicetarget: [{ device: 'mobile', link: 'https://example.com/mobile' }],
        geotarget: [{ location: 'DE', link: 'https://example.com/de-country' }],
        languagetarget: [{ language: 'de', link: 'https://example.com/de-language' }],
      });
      const everything = { 'x-forwarded-for': IP.de, 'accept-language': 'de' };
      await expectLocations(l.alias, [
        [{ ...everything, 'user-agent': UA.iphone }, 'myapp://open'],
        [{ ...everything, 'user-agent': UA.android }, 'intent://open#Intent;scheme=myapp;end'],
        [{ ...everything, 'user-agent': UA.windows }, 'https://example.com/de-country'],
        [{ 'accept-language': 'de', 'user-agent': UA.windows }, 'https://example.com/de-language'],
        [{ 'user-agent': UA.macos }, 'https://example.com/default'],
      ]);
    });

    it('parameters replace the destination’s own, keep its other parameters and fragment, and reach targeted destinations', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/page?a=1&utm_source=old#frag',
        parameters: [
          { name: 'utm_source', value: 'news letter' },
          { name: 'utm_medium', value: 'email&x=1' },
        ],
        geotarget: [{ location: 'DE', link: 'https://example.de/p#top' }],
      });
      const plain = new URL(await location(l.alias));
      expect(plain.origin + plain.pathname).toBe('https://example.com/page');
      expect([...plain.searchParams]).toEqual([
        ['a', '1'],
        ['utm_source', 'news letter'],
        ['utm_medium', 'email&x=1'],
      ]);
      expect(plain.hash).toBe('#frag');
      const de = new URL(await location(l.alias, { 'x-forwarded-for': IP.de }));
      expect(de.origin + de.pathname + de.hash).toBe('https://example.de/p#top');
      expect(de.searchParams.get('utm_source')).toBe('news letter');
    });

    it('forwardquery adds the visitor’s query string (replacing same names); without it the query is dropped', async () => {
      const fwd = await addLink(t, pro, {
        url: 'https://example.com/x?keep=1&ref=link#f',
        forwardquery: true,
        parameters: [{ name: 'utm_source', value: 'link' }],
      });
      const u = new URL(await location(fwd.alias, {}, '?ref=visitor&extra=%C3%A9'));
      expect(Object.fromEntries(u.searchParams)).toEqual({
        keep: '1',
        ref: 'visitor',
        utm_source: 'link',
        extra: 'é',
      });
      expect(u.hash).toBe('#f');
      expect(await location(fwd.alias)).toBe(
        'https://example.com/x?keep=1&ref=link&utm_source=link#f',
      );
      const plain = await addLink(t, pro, { url: 'https://example.com/y' });
      expect(await location(plain.alias, {}, '?ref=visitor')).toBe('https://example.com/y');
    });

    it('a link without options still answers with its prebuilt 302 (same headers as before)', async () => {
      const l = await addLink(t, pro, { url: 'https://example.com/fast' });
      const res = await visit(l.alias);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://example.com/fast');
      expect(res.headers['cache-control']).toBe('private, max-age=90');
    });
  });

  describe('social previews', () => {
    it('preview fetchers get a 200 page with Open Graph and Twitter Card tags (escaped, strict CSP); browsers the 302; previews are not counted', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/article',
        metatitle: 'A "title" <b>bold</b>',
        metadescription: "It's <script>alert(1)</script> good",
        metaimage: 'https://img.example/card.png?a=1&b=2',
      });
      const page = await visit(l.alias, { 'user-agent': PREVIEW_UA });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = page.headers['content-security-policy'] as string;
      expect(csp).toMatch(/^default-src 'none'; /);
      expect(csp).not.toMatch(/script-src|unsafe/);
      expect(page.text).toContain(
        '<meta property="og:title" content="A &quot;title&quot; &lt;b&gt;bold&lt;/b&gt;">',
      );
      expect(page.text).toContain(
        '<meta property="og:description" content="It&#39;s &lt;script&gt;alert(1)&lt;/script&gt; good">',
      );
      expect(page.text).toContain(
        '<meta property="og:image" content="https://img.example/card.png?a=1&amp;b=2">',
      );
      expect(page.text).toContain('<meta name="twitter:card" content="summary_large_image">');
      expect(page.text).not.toContain('<script>');
      for (const ua of [
        'Twitterbot/1.0',
        'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
        'WhatsApp/2.23.20.0',
      ])
        expect((await visit(l.alias, { 'user-agent': ua })).status).toBe(200);
      expect(await location(l.alias)).toBe('https://example.com/article');
      // only the browser's visit is counted (visits reach the counters within STATS_FLUSH_MS)
      const clicks = async () => {
        await foldStats(t);
        return (await t.http().get(`/api/url/${l.id}`).set(pro.auth).expect(200)).body.data.clicks;
      };
      await eventually(async () => (await clicks()) >= 1, 5000);
      await new Promise((r) => setTimeout(r, 700));
      expect(await clicks()).toBe(1);
    });

    it('a link without preview tags sends preview fetchers the 302 too', async () => {
      const l = await addLink(t, pro, { url: 'https://example.com/no-meta' });
      expect(await location(l.alias, { 'user-agent': PREVIEW_UA })).toBe(
        'https://example.com/no-meta',
      );
    });
  });

  describe('expiry, click limits, expiration redirect, private links', () => {
    /** Moves the link's expiry a second into the past, then updates it through the API (renewing its cached copies). */
    const expire = async (id: number) => {
      await t.db.query(`UPDATE links SET expires_at = now() - interval '1 second' WHERE id = $1`, [
        id,
      ]);
      await update(pro, id, { title: 'x' }).expect(200);
    };
    it('expirationredirect replaces the 410 page of an expired link', async () => {
      const l = await addLink(t, pro, {
        url: 'https://example.com/live',
        expiry: dateTimeIn(60_000),
        expirationredirect: 'https://example.com/ended',
      });
      expect(await location(l.alias)).toBe('https://example.com/live');
      await expire(l.id);
      const res = await visit(l.alias);
      expect([res.status, res.headers.location, res.headers['cache-control']]).toEqual([
        302,
        'https://example.com/ended',
        'no-store',
      ]);
      const plain = await addLink(t, pro, { url: 'https://example.com/live' });
      await expire(plain.id);
      expect((await visit(plain.alias)).status).toBe(410);
    });

    it('a click limit counts browser visits only, then behaves as expired (410, or the expiration redirect)', async () => {
      const l = await addLink(t, pro, { url: 'https://example.com/limited', clicklimit: 2 });
      // bots and HEAD requests do not use the limit up
      expect(await location(l.alias, { 'user-agent': PREVIEW_UA })).toBe(
        'https://example.com/limited',
      );
      await t
        .http()
        .head(`/${l.alias}`)
        .set('Host', MAIN)
        .set('User-Agent', BROWSER_UA)
        .expect(302);
      expect(await location(l.alias)).toBe('https://example.com/limited');
      expect(await location(l.alias)).toBe('https://example.com/limited');
      expect((await visit(l.alias)).status).toBe(410);
      expect((await visit(l.alias, { 'user-agent': PREVIEW_UA })).status).toBe(410);
      await update(pro, l.id, { expirationredirect: 'https://example.com/sold-out' }).expect(200);
      expect(await location(l.alias)).toBe('https://example.com/sold-out');
      // raising the limit opens it again
      await update(pro, l.id, { clicklimit: 3 }).expect(200);
      expect(await location(l.alias)).toBe('https://example.com/limited');
      expect(await location(l.alias)).toBe('https://example.com/sold-out');
    });

    it('a used-up link answers HEAD, bots, preview fetchers and empty user agents as used up, never showing its destination', async () => {
      const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
      const l = await addLink(t, pro, {
        url: 'https://example.com/secret-target',
        clicklimit: 1,
        metatitle: 'Limited offer',
      });
      // before the limit: the preview page for fetchers (not counted), the 302 for people
      const before = await visit(l.alias, { 'user-agent': PREVIEW_UA });
      expect([before.status, before.text]).toEqual([200, expect.stringContaining('Limited offer')]);
      expect(await location(l.alias)).toBe('https://example.com/secret-target');
      await withTestApp({}, async (t2) => {
        // this instance (the visit above marked the link used up in it) and a second one, which
        // has to ask the shared counter: the same answers
        for (const app of [t, t2]) {
          const asked = async (ua: string) => {
            const res = await visit(l.alias, { 'user-agent': ua }, app);
            return [ua, res.status, res.headers.location, res.text ?? ''];
          };
          for (const ua of [PREVIEW_UA, GOOGLEBOT, '', BROWSER_UA])
            expect(await asked(ua)).toEqual([ua, 410, undefined, expect.any(String)]);
          const preview = await visit(l.alias, { 'user-agent': PREVIEW_UA }, app);
          expect(preview.text).not.toContain('secret-target');
          expect(preview.text).not.toContain('Limited offer');
          for (const ua of [BROWSER_UA, PREVIEW_UA, ''])
            expect([
              ua,
              (
                await app
                  .http()
                  .head(`/${l.alias}`)
                  .set('Host', MAIN)
                  .set('User-Agent', ua)
                  .redirects(0)
              ).status,
            ]).toEqual([ua, 410]);
        }
        // with an expiration redirect, a preview fetcher is sent there, not to the destination
        await update(pro, l.id, { expirationredirect: 'https://example.com/sold-out' }).expect(200);
        for (const app of [t2, t]) {
          const res = await visit(l.alias, { 'user-agent': PREVIEW_UA }, app);
          expect([res.status, res.headers.location]).toEqual([302, 'https://example.com/sold-out']);
          expect(res.text ?? '').not.toContain('secret-target');
        }
      });
    });

    it('a click limit is exact under 200 concurrent visits across two api instances', async () => {
      await withTestApp({}, async (t2) => {
        const l = await addLink(t, pro, { url: 'https://example.com/drop', clicklimit: 37 });
        const answers = await Promise.all(
          Array.from({ length: 200 }, (_, i) => visit(l.alias, {}, i % 2 ? t2 : t)),
        );
        const statuses = answers.map((r) => r.status);
        expect(statuses.filter((s) => s === 302)).toHaveLength(37);
        expect(statuses.filter((s) => s === 410)).toHaveLength(163);
      });
    });

    it('private links are left out of public campaign list pages (the rotator still uses them)', async () => {
      const slug = uniq('pv');
      const campaign = await insertCampaign(t, pro.id, { name: 'Mixed', slug, public: true });
      const shown = await addLink(t, pro, {
        url: 'https://example.com/shown',
        title: 'Shown',
        campaign,
      });
      const hidden = await addLink(t, pro, {
        url: 'https://example.com/hidden',
        title: 'Hidden',
        campaign,
        status: 'private',
      });
      const page = await t.http().get(`/u/${slug}-${campaign}`).set('Host', MAIN).expect(200);
      expect(page.text).toContain(shown.shorturl);
      expect(page.text).not.toContain(hidden.shorturl);
      expect(page.text).not.toContain('Hidden');
      await update(pro, hidden.id, { status: 'public' }).expect(200);
      expect((await t.http().get(`/u/${slug}-${campaign}`).set('Host', MAIN)).text).toContain(
        hidden.shorturl,
      );
    });
  });

  describe('cache invalidation', () => {
    it('a second api instance sees option changes at once', async () => {
      await withTestApp({}, async (t2) => {
        const l = await addLink(t, pro, { url: 'https://example.com/base' });
        const atB = async (headers: Record<string, string>) =>
          (await visit(l.alias, headers, t2)).headers.location;
        expect(await atB({ 'x-forwarded-for': IP.de })).toBe('https://example.com/base');
        await update(pro, l.id, {
          geotarget: [{ location: 'DE', link: 'https://example.de/' }],
        }).expect(200);
        await eventually(
          async () => (await atB({ 'x-forwarded-for': IP.de })) === 'https://example.de/',
          3000,
          20,
        );
        await update(pro, l.id, { geotarget: null }).expect(200);
        await eventually(
          async () => (await atB({ 'x-forwarded-for': IP.de })) === 'https://example.com/base',
          3000,
          20,
        );
      });
    });
  });

  describe('bulk creation', () => {
    it('creates each valid item and reports each invalid one in its place', async () => {
      const taken = uniq('tk');
      await addLink(t, pro, { url: 'https://example.com/t', custom: taken });
      const res = await bulk(pro, {
        urls: [
          { url: 'https://example.com/1' },
          { url: 'not a url' },
          { url: 'https://example.com/3', custom: taken },
          {
            url: 'https://example.com/4',
            geotarget: [{ location: 'XX', link: 'https://a.example/' }],
          },
          'a string',
          { url: 'https://example.com/6', unknown: 1 },
          { url: 'https://example.com/7', title: 'seven' },
        ],
      }).expect(200);
      expect(res.body.error).toBe(0);
      const data = res.body.data as Array<Record<string, unknown>>;
      expect(data).toHaveLength(7);
      expect(data[0]).toEqual({
        id: expect.any(Number),
        shorturl: expect.stringMatching(/^http:\/\/short\.test\//),
      });
      expect(data[1]).toEqual({ error: 1, message: expect.stringMatching(/^url: /) });
      expect(data[2]).toEqual({
        error: 1,
        message: expect.stringMatching(/^custom: this alias is already taken/),
      });
      expect(data[3]).toEqual({
        error: 1,
        message: expect.stringMatching(/^geotarget\[0\]\.location: /),
      });
      expect(data[4]).toEqual({ error: 1, message: 'must be a JSON object' });
      expect(data[5]).toEqual({ error: 1, message: 'unknown: unknown field' });
      expect(data[6]).toEqual({ id: expect.any(Number), shorturl: expect.any(String) });
      expect((await details(pro, data[6].id as number)).title).toBe('seven');
      expect(await location((data[0].shorturl as string).split('/').pop() as string)).toBe(
        'https://example.com/1',
      );
    });

    it('needs the plan feature "multiple", 1 to 100 items, and keeps the plan’s links count for the whole request', async () => {
      const free = await createUser(t);
      expectError(
        await bulk(free, { urls: [{ url: 'https://example.com/' }] }),
        403,
        /"multiple" feature/,
      );
      expectError(await bulk(pro, { urls: [] }), 400, /^urls: /);
      expectError(
        await bulk(pro, {
          urls: Array.from({ length: 101 }, () => ({ url: 'https://example.com/' })),
        }),
        400,
        /^urls: /,
      );
      expectError(await bulk(pro, {}), 400, /^urls: /);

      const capped = await createPlan(t, { links: 3, multiple: { enabled: '1' } });
      const u = await createUser(t, { planId: capped });
      await addLink(t, u, { url: 'https://example.com/first' });
      const res = await bulk(u, {
        urls: Array.from({ length: 4 }, (_, i) => ({ url: `https://example.com/${i}` })),
      }).expect(200);
      const data = res.body.data as Array<Record<string, unknown>>;
      expect(data.filter((d) => d.id)).toHaveLength(2);
      expect(data.slice(2)).toEqual([
        { error: 1, message: 'Plan limit reached: your plan allows 3 links' },
        { error: 1, message: 'Plan limit reached: your plan allows 3 links' },
      ]);
      expect(await linkCount(t, u.id)).toBe(3);
    });
  });

  describe('plan flags', () => {
    it('bundle gates creating campaigns', async () => {
      const noBundle = await createPlan(t, { bundle: { enabled: '0' } });
      const u = await createUser(t, { planId: noBundle });
      expectError(
        await t.http().post('/api/campaign/add').set(u.auth).send({ name: 'c' }),
        403,
        /"bundle" feature/,
      );
      await t.http().post('/api/campaign/add').set(pro.auth).send({ name: 'c' }).expect(200);
    });
  });
});
