import { existsSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import { Browser, BrowserContext, Page, Response } from 'playwright-core';

import { PRO_LIMITS } from '@app/database/migrations/1732200000000-initial-schema';

import { FORWARD_MAX_WAIT_MS } from '../apps/api/src/public/pages';
import { createPlan, createTestApp, createUser, TestApp, TestUser } from './support/app';
import { addLink, uniq } from './support/links';
import { eventually, readStats } from './support/stats';
import { CHROMIUM, launchChromium } from './support/chromium';

/**
 * The public HTML pages (redirector and `/q/` QR pages) in a real headless Chromium, as a visitor
 * sees them: each page
 * renders under its own Content-Security-Policy without a single violation, forwards where it
 * should, fires its pixel tags, and prints what users wrote as text, never as markup — with the CSP
 * on, and again with the CSP switched off so the escaping alone is what is tested.
 *
 * `http://short.test` (PUBLIC_URL in tests) is mapped to the api's port by the browser's host
 * resolver; link targets live on a local server (127.0.0.1), so forwarding is observed for real;
 * every other request (pixel vendors) is answered by the test and recorded.
 *
 * A page is one row of PAGES (how to create what it shows, what a visitor sees, what the visitor
 * does next); the generic tests run over every row.
 */

const MAIN = 'http://short.test';
const PASSWORD = 'open sesame';
/** Pixel beacons are answered this long after the page was checked (the forward must wait for them). */
const BEACON_DELAY_MS = 200;
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** What users write into titles, names and messages. Each must print as text and never run. */
const XSS = [
  '<script>window.__xss=1</script>',
  '"><img src=x onerror="window.__xss=1">',
  "'></title><svg onload=window.__xss=1>",
  '&lt;script&gt;window.__xss=1&lt;/script&gt;',
];
/** For fields of at most 32 characters (a Wi-Fi network name). */
const SHORT_XSS = `'"><svg onload=__xss=1>`;
/** Ordinary text, for the tests of behaviour. */
const PLAIN = 'Summer sale & <more>';

/** The same text where it goes into a URL (no spaces there: `/` separates attributes alike in HTML). */
const inUrl = (text: string) => text.replace(/ /g, '/');

/** The few browser globals the page functions use (the project compiles without the DOM lib). */
interface DomNode {
  textContent: string | null;
  parentElement: DomElement | null;
}
interface DomElement extends DomNode {
  checkVisibility(): boolean;
  append(node: DomNode): void;
  naturalWidth: number;
}
interface CspViolationEvent {
  violatedDirective: string;
  blockedURI: string;
  sample: string;
}
declare const document: {
  body: DomElement;
  createTreeWalker(root: DomElement, whatToShow: number): { nextNode(): DomNode | null };
  createElement(tag: string): DomElement;
  getElementById(id: string): DomElement | null;
  addEventListener(type: string, fn: (e: CspViolationEvent) => void, capture: boolean): void;
};
declare const window: object;
declare const location: { href: string };
declare function getComputedStyle(e: DomElement): {
  backgroundColor: string;
  color: string;
  position: string;
};
const SHOW_TEXT = 4;

interface Hit {
  path: string;
  at: number;
}

/**
 * A browser context with one page, and everything the browser reported in it (on every page and
 * frame it showed, popups included).
 */
interface Session {
  context: BrowserContext;
  page: Page;
  /** CSP violations: `securitypolicyviolation` events and the console's CSP messages. */
  csp: string[];
  /** Uncaught script errors. */
  errors: string[];
  /** Every assignment to window.__xss, in any page or frame. */
  xss: string[];
  /** Requests to any origin other than short.test and the target server (answered by the test). */
  external: Array<{ url: string; type: string; at: number; answeredAt?: number }>;
  /**
   * Beacon images wait for this (set by `visit`, opened by `expectShown` or `release`), so a page
   * that forwards once its pixels loaded stays until it was checked.
   */
  gate: Promise<void>;
  release: () => void;
}

/** What a visitor must see on a page. */
interface Shown {
  /** Path on http://short.test. */
  path: string;
  status: number;
  title: string;
  /**
   * The visible text nodes, in order, whitespace-collapsed: what users wrote is one text node
   * holding exactly what they wrote (it was not parsed as markup).
   */
  texts: string[];
  /** Strings that must not be anywhere in the served markup (e.g. a protected target). */
  hides?: string[];
  /** `/landing/<tag>` on the target server: where the page leads. */
  landing?: string;
  /** The page forwards by itself once loaded: the visit ends on the target. */
  autoForward?: boolean;
}

interface PageRow {
  name: string;
  /** Creates the data behind the page, with `text` in every field a user writes. */
  make(u: TestUser, text: string): Promise<Shown>;
  /** What the visitor does next and what must follow. */
  behave?(s: Session, shown: Shown): Promise<void>;
  /** The page prints nothing a user wrote (the XSS test skips it; `hides` still applies). */
  printsNothingWritten?: true;
}

describe('public pages in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let planId: number;
  let target: Server;
  let targetBase: string;
  const hits: Hit[] = [];
  let contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: the browser suite needs Debian's chromium package (apt-get install -y chromium; .ci/run installs it)`,
      );
    t = await createTestApp();
    await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    const apiPort = (t.server.address() as AddressInfo).port;
    planId = await createPlan(t, PRO_LIMITS);

    // the link targets: a landing page per test, the splash image, the overlay's CTA page
    target = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      hits.push({ path, at: Date.now() });
      if (path === '/hero.png') {
        res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG);
        return;
      }
      const title = path.startsWith('/cta/') ? 'Offer' : 'Landing';
      res
        .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><title>${title}</title><h1>Landed</h1>`);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetBase = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

    browser = await launchChromium(`MAP short.test 127.0.0.1:${apiPort}`);
  });

  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    contexts = [];
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (target ? target.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  const newUser = () => createUser(t, { planId });
  const landing = (tag: string, text?: string) =>
    `${targetBase}/landing/${tag}${text === undefined ? '' : `?q=${inUrl(text)}`}`;
  const landingHit = (tag: string) => hits.find((h) => h.path === `/landing/${tag}`);
  const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** A fresh context (closed after the test) with its page; the CSP is enforced unless bypassed. */
  async function session(
    opts: {
      bypassCSP?: boolean;
      javaScriptEnabled?: boolean;
      viewport?: { width: number; height: number };
      userAgent?: string;
      isMobile?: boolean;
      hasTouch?: boolean;
    } = {},
  ): Promise<Session> {
    const context = await browser.newContext(opts);
    contexts.push(context);
    // a wait that fails, fails fast and says what it waited for
    context.setDefaultTimeout(5000);
    const s: Session = {
      context,
      page: null as unknown as Page,
      csp: [],
      errors: [],
      xss: [],
      external: [],
      gate: Promise.resolve(),
      release: () => undefined,
    };
    await context.exposeBinding('__cspViolation', (_src, v: string) => void s.csp.push(v));
    await context.exposeBinding('__xssRan', (_src, v: string) => void s.xss.push(v));
    await context.addInitScript(() => {
      const w = window as unknown as Record<string, unknown>;
      if (Object.getOwnPropertyDescriptor(w, '__xss')) return;
      const report = (name: string, text: string) =>
        (w[name] as (s: string) => void)(`${text} @ ${location.href}`);
      document.addEventListener(
        'securitypolicyviolation',
        (e) => report('__cspViolation', `${e.violatedDirective} ${e.blockedURI} ${e.sample}`),
        true,
      );
      let value: unknown;
      Object.defineProperty(w, '__xss', {
        get: () => value,
        set: (x: unknown) => {
          value = x;
          report('__xssRan', String(x));
        },
      });
    });
    await context.route('**/*', async (route) => {
      const req = route.request();
      const url = new URL(req.url());
      if (url.origin === MAIN || url.origin === targetBase) return route.continue();
      const entry: Session['external'][number] = {
        url: req.url(),
        type: req.resourceType(),
        at: Date.now(),
      };
      s.external.push(entry);
      try {
        if (req.resourceType() === 'image') {
          await s.gate;
          await delay(BEACON_DELAY_MS);
          entry.answeredAt = Date.now();
          await route.fulfill({ status: 200, contentType: 'image/gif', body: GIF });
        } else if (req.resourceType() === 'document') {
          entry.answeredAt = Date.now();
          await route.fulfill({
            status: 200,
            contentType: 'text/html',
            body: '<!doctype html><title>tag</title>',
          });
        } else await route.abort();
      } catch {
        // the context closed meanwhile
      }
    });
    const watched = new WeakSet<Page>();
    const watch = (p: Page) => {
      if (watched.has(p)) return;
      watched.add(p);
      p.on('console', (m) => {
        if (/content.security.policy/i.test(m.text())) s.csp.push(m.text());
      });
      p.on('pageerror', (e) => s.errors.push(e.message));
    };
    context.on('page', watch);
    s.page = await context.newPage();
    watch(s.page);
    return s;
  }

  /** Opens `path` on the short host, up to DOMContentLoaded; beacons are held until released. */
  async function visit(s: Session, path: string): Promise<Response> {
    const gate = new Promise<void>((resolve) => {
      s.release = resolve;
      setTimeout(resolve, 5000).unref();
    });
    s.gate = gate;
    const response = await s.page.goto(MAIN + path, { waitUntil: 'domcontentloaded' });
    if (!response) throw new Error(`no response for ${path}`);
    return response;
  }

  /** The visible text nodes of the page, whitespace-collapsed. */
  function visibleTexts(page: Page): Promise<string[]> {
    return page.evaluate((showText) => {
      const out: string[] = [];
      const walker = document.createTreeWalker(document.body, showText);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = (n.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (text && n.parentElement?.checkVisibility()) out.push(text);
      }
      return out;
    }, SHOW_TEXT);
  }

  /** Status, CSP header, title, visible text, the page's own style applied; nothing hidden leaks. */
  async function expectShown(s: Session, response: Response, shown: Shown): Promise<void> {
    expect(response.status()).toBe(shown.status);
    const headers = response.headers();
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['content-security-policy']).toMatch(/^default-src 'none'; .*style-src 'sha256-/);
    expect(headers['x-frame-options']).toBe('DENY');
    expect(await s.page.title()).toBe(shown.title);
    expect(await visibleTexts(s.page)).toEqual(shown.texts);
    // the inline stylesheet (allowed by its hash) applies
    expect(await s.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(246, 248, 250)',
    );
    if (shown.hides) {
      const markup = await s.page.content();
      for (const secret of shown.hides) expect(markup).not.toContain(secret);
    }
    s.release();
  }

  /** No CSP violation (unless the CSP is bypassed), no script error, no injected script ran. */
  async function expectClean(s: Session, opts: { csp?: boolean } = {}) {
    // still on one of our pages (not forwarded): window.__xss is unset there
    if (s.page.url().startsWith(MAIN))
      expect(await s.page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
    expect(s.xss).toEqual([]);
    expect(s.errors).toEqual([]);
    if (opts.csp !== false) expect(s.csp).toEqual([]);
  }

  async function waitForLanding(page: Page, tag: string, timeout = 5000): Promise<void> {
    await page.waitForURL((u) => u.origin === targetBase && u.pathname === `/landing/${tag}`, {
      timeout,
    });
    expect(await page.locator('h1').innerText()).toBe('Landed');
    expect(landingHit(tag)).toBeDefined();
  }

  async function addPixel(u: TestUser, type: string, tag: string, name: string): Promise<number> {
    const res = await t.http().post('/api/pixel/add').set(u.auth).send({ type, name, tag });
    if (res.status !== 200) throw new Error(`pixel/add ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  /** Creates a QR code through the API; its public page's path (`/q/<code>`). */
  async function addQr(u: TestUser, body: Record<string, unknown>): Promise<string> {
    const res = await t.http().post('/api/qr/add').set(u.auth).send(body);
    if (res.status !== 200) throw new Error(`qr/add ${res.status}: ${JSON.stringify(res.body)}`);
    expect(res.body.link).toMatch(/^http:\/\/short\.test\/q\/[A-Za-z0-9]+$/);
    return new URL(res.body.link).pathname;
  }

  async function insertSplash(
    u: TestUser,
    s: { title: string; message: string; buttonText: string; countdown: number; imageUrl: string },
  ): Promise<void> {
    await t.db.query(
      `INSERT INTO splash_pages (user_id, name, title, message, button_text, countdown, image_url)
       VALUES ($1, 'splash', $2, $3, $4, $5, $6)`,
      [u.id, s.title, s.message, s.buttonText, s.countdown, s.imageUrl],
    );
  }

  /** The pixels a link gets, and the URL prefix of each one's vendor beacon. */
  const PIXELS = [
    {
      type: 'vendor03pixel',
      tag: '998877665544',
      beacon: 'https://www.facebook.com/tr?id=998877665544&',
    },
    {
      type: 'vendor01pixel',
      tag: 'GTM-ABC123',
      beacon: 'https://www.googletagmanager.com/ns.html?id=GTM-ABC123',
    },
    { type: 'vendor10', tag: 'abc.DEF:1', beacon: 'https://bat.bing.com/action/0?ti=abc.DEF%3A1&' },
  ];

  /** Every beacon was requested once and answered, and the forward to `tag` came after the last answer. */
  function expectPixelsFiredBeforeForward(s: Session, tag: string): void {
    for (const p of PIXELS) {
      const fired = s.external.filter((e) => e.url.startsWith(p.beacon));
      expect({ beacon: p.beacon, fired: fired.length }).toEqual({ beacon: p.beacon, fired: 1 });
      expect(fired[0].answeredAt).toBeDefined();
      expect(landingHit(tag)!.at).toBeGreaterThanOrEqual(fired[0].answeredAt!);
    }
    // nothing else left the page
    expect(s.external).toHaveLength(PIXELS.length);
  }

  const PAGES: PageRow[] = [
    {
      name: 'password form',
      printsNothingWritten: true,
      async make(u, text) {
        const tag = uniq('pw');
        const l = await addLink(t, u, {
          url: landing(tag, text),
          password: PASSWORD,
          title: text,
          description: text,
        });
        return {
          path: `/${l.alias}`,
          status: 200,
          title: 'Password required',
          texts: ['This link is protected', 'Enter the password to continue', 'Continue'],
          hides: [tag],
          landing: tag,
        };
      },
      async behave(s, shown) {
        const field = s.page.getByLabel('Enter the password to continue');
        await field.fill('not it');
        const [wrong] = await Promise.all([
          s.page.waitForResponse((r) => r.request().method() === 'POST'),
          s.page.getByRole('button', { name: 'Continue' }).click(),
        ]);
        expect(wrong.status()).toBe(401);
        await s.page.waitForLoadState('load');
        // the form again, with the error; still on the short URL, nothing forwarded
        expect(await visibleTexts(s.page)).toEqual([
          'This link is protected',
          'Enter the password to continue',
          'Wrong password, try again.',
          'Continue',
        ]);
        expect(await s.page.getByRole('alert').innerText()).toBe('Wrong password, try again.');
        expect(s.page.url()).toBe(MAIN + shown.path);
        expect(await field.inputValue()).toBe('');
        expect(landingHit(shown.landing!)).toBeUndefined();

        await field.fill(PASSWORD);
        await s.page.getByRole('button', { name: 'Continue' }).click();
        await waitForLanding(s.page, shown.landing!);
      },
    },
    {
      name: 'splash page with countdown',
      async make(u, text) {
        await insertSplash(u, {
          title: text,
          message: text,
          buttonText: text,
          countdown: 2,
          imageUrl: `${targetBase}/hero.png`,
        });
        const tag = uniq('splash');
        const l = await addLink(t, u, { url: landing(tag, text), type: 'splash', title: text });
        return {
          path: `/${l.alias}`,
          status: 200,
          title: text,
          // the count may already have ticked on a loaded machine
          texts: [text, text, text, 'Forwarding in', expect.stringMatching(/^[12]$/), 's'],
          landing: tag,
        };
      },
      async behave(s, shown) {
        const shownAt = Date.now();
        await s.page.waitForLoadState('load');
        expect(await s.page.locator('img.hero').evaluate((i: DomElement) => i.naturalWidth)).toBe(
          1,
        );
        // the countdown script runs (its hash is in the CSP) and counts down
        await s.page.waitForFunction(() => document.getElementById('count')?.textContent === '1');
        expect(landingHit(shown.landing!)).toBeUndefined();
        await waitForLanding(s.page, shown.landing!);
        expect(landingHit(shown.landing!)!.at - shownAt).toBeGreaterThanOrEqual(1500);
      },
    },
    {
      name: 'splash page without countdown',
      async make(u, text) {
        await insertSplash(u, {
          title: text,
          message: text,
          buttonText: text,
          countdown: 0,
          imageUrl: '',
        });
        const tag = uniq('click');
        const l = await addLink(t, u, { url: landing(tag, text), type: 'splash' });
        return {
          path: `/${l.alias}`,
          status: 200,
          title: text,
          texts: [text, text, text],
          landing: tag,
        };
      },
      async behave(s, shown) {
        expect(await s.page.locator('#count').count()).toBe(0);
        await delay(1000);
        expect(s.page.url()).toBe(MAIN + shown.path);
        expect(landingHit(shown.landing!)).toBeUndefined();
        await s.page.getByRole('link', { name: shown.title, exact: true }).click();
        await waitForLanding(s.page, shown.landing!);
      },
    },
    {
      name: 'frame page',
      async make(u, text) {
        const tag = uniq('frame');
        const l = await addLink(t, u, { url: landing(tag, text), type: 'frame', title: text });
        return { path: `/${l.alias}`, status: 200, title: text, texts: [], landing: tag };
      },
      async behave(s, shown) {
        const frame = s.page.locator('iframe.target');
        expect(await frame.getAttribute('title')).toBe(shown.title);
        expect(await s.page.frameLocator('iframe.target').locator('h1').innerText()).toBe('Landed');
        expect(landingHit(shown.landing!)).toBeDefined();
        // the target fills the viewport; the short URL stays in the address bar
        expect(await frame.boundingBox()).toEqual({ x: 0, y: 0, ...s.page.viewportSize() });
        expect(s.page.url()).toBe(MAIN + shown.path);
      },
    },
    {
      name: 'overlay page',
      async make(u, text) {
        const tag = uniq('overlay');
        const [row] = await t.db.query(
          `INSERT INTO overlays (user_id, type, name, message, button_text, button_link, bg_color, text_color, position)
           VALUES ($1, 'message', 'ov', $2, $2, $3, '#ffeeaa', '#112233', 'br') RETURNING id`,
          [u.id, text, `${targetBase}/cta/${tag}`],
        );
        const l = await addLink(t, u, { url: landing(tag), type: row.id, title: text });
        return { path: `/${l.alias}`, status: 200, title: text, texts: [text, text], landing: tag };
      },
      async behave(s, shown) {
        expect(await s.page.frameLocator('iframe.target').locator('h1').innerText()).toBe('Landed');
        const box = s.page.locator('aside.overlay');
        const style = await box.evaluate((e: DomElement) => {
          const c = getComputedStyle(e);
          return { bg: c.backgroundColor, color: c.color, position: c.position };
        });
        expect(style).toEqual({
          bg: 'rgb(255, 238, 170)',
          color: 'rgb(17, 34, 51)',
          position: 'fixed',
        });
        // in the bottom right corner, over the frame
        const b = (await box.boundingBox())!;
        const vp = s.page.viewportSize()!;
        expect(b.x + b.width).toBeGreaterThan(vp.width - 40);
        expect(b.y + b.height).toBeGreaterThan(vp.height - 40);
        // its button opens the CTA in a new tab; the framed page stays
        const [popup] = await Promise.all([
          s.context.waitForEvent('page'),
          box.getByRole('link', { name: shown.title, exact: true }).click(),
        ]);
        await popup.waitForURL(`${targetBase}/cta/${shown.landing}`);
        expect(await popup.title()).toBe('Offer');
        expect(s.page.url()).toBe(MAIN + shown.path);
      },
    },
    {
      name: 'pixel page',
      async make(u, text) {
        const ids: number[] = [];
        for (const p of PIXELS) ids.push(await addPixel(u, p.type, p.tag, text));
        const tag = uniq('pixels');
        const url = landing(tag, text);
        const l = await addLink(t, u, { url, pixels: ids, title: text });
        return {
          path: `/${l.alias}`,
          status: 200,
          title: 'Redirecting…',
          texts: ['Redirecting…', 'You are being forwarded to', url],
          landing: tag,
          autoForward: true,
        };
      },
      async behave(s, shown) {
        await waitForLanding(s.page, shown.landing!);
        expectPixelsFiredBeforeForward(s, shown.landing!);
      },
    },
    {
      name: 'campaign list page',
      async make(u, text) {
        const res = await t
          .http()
          .post('/api/campaign/add')
          .set(u.auth)
          .send({ name: text, slug: uniq('list').toLowerCase(), public: true })
          .expect(200);
        expect(res.body.list).toMatch(/^http:\/\/short\.test\/u\//);
        const tag = uniq('listed');
        const first = await addLink(t, u, {
          url: landing(tag),
          campaign: res.body.id,
          title: text,
        });
        const second = await addLink(t, u, { url: landing(uniq('other')), campaign: res.body.id });
        return {
          path: new URL(res.body.list).pathname,
          status: 200,
          title: text,
          // newest first; the untitled link shows its short URL only
          texts: [text, second.shorturl, text, first.shorturl],
          landing: tag,
        };
      },
      async behave(s, shown) {
        // the titled link: its short URL goes through the redirector to the target
        await s.page.getByRole('link', { name: shown.texts[3], exact: true }).click();
        await waitForLanding(s.page, shown.landing!);
      },
    },
    {
      name: 'QR text page',
      async make(u, text) {
        return {
          path: await addQr(u, { type: 'text', data: text, name: text }),
          status: 200,
          title: 'Text',
          texts: ['Text', text],
        };
      },
    },
    {
      name: 'QR Wi-Fi page',
      async make(u, text) {
        // a network name has at most 32 bytes
        const ssid = text.length <= 32 ? text : SHORT_XSS;
        return {
          path: await addQr(u, { type: 'wifi', data: { ssid, pass: text }, name: text }),
          status: 200,
          title: `Wi-Fi: ${ssid}`,
          texts: [
            'Wi-Fi network',
            'Network',
            ssid,
            'Password',
            text,
            'Security',
            'WPA',
            'Open the Wi-Fi settings of your device, choose this network and enter the password.',
          ],
        };
      },
    },
    {
      name: 'bio page',
      async make(u, text) {
        const tag = uniq('bio');
        const res = await t
          .http()
          .post('/api/bio/add')
          .set(u.auth)
          .send({
            name: text,
            title: text,
            description: text,
            avatar: `${targetBase}/hero.png`,
            links: [
              { title: text, url: landing(tag) },
              { title: 'Second', url: landing(uniq('second')) },
            ],
            socials: { github: landing(uniq('social')) },
          })
          .expect(200);
        return {
          path: new URL(res.body.url).pathname,
          status: 200,
          title: text,
          texts: [text, text, text, 'Second', 'GitHub'],
          landing: tag,
        };
      },
      async behave(s, shown) {
        // the avatar (allowed by img-src) loaded
        await s.page.waitForLoadState('load');
        expect(await s.page.locator('img.avatar').evaluate((e: DomElement) => e.naturalWidth)).toBe(
          1,
        );
        // a button goes through the page's own address (counted there), then to its URL
        await s.page.getByRole('link', { name: shown.texts[2], exact: true }).click();
        await waitForLanding(s.page, shown.landing!);
      },
    },
    {
      name: '410 expired page',
      printsNothingWritten: true,
      async make(u, text) {
        const tag = uniq('expired');
        const alias = uniq('exp');
        await t.db.query(
          `INSERT INTO links (user_id, alias, url, title, expires_at) VALUES ($1, $2, $3, $4, now() - interval '1 second')`,
          [u.id, alias, landing(tag, text), text],
        );
        return {
          path: `/${alias}`,
          status: 410,
          title: 'Link expired',
          texts: ['Link expired', 'This short link has expired and no longer forwards anywhere.'],
          hides: [tag],
        };
      },
    },
    {
      name: '404 page',
      printsNothingWritten: true,
      async make(_u, text) {
        return {
          path: `/${uniq('missing')}?q=${encodeURIComponent(text)}`,
          status: 404,
          title: 'Link not found',
          texts: ['Link not found', 'This short link does not exist or has been removed.'],
        };
      },
    },
  ];

  it.each(PAGES)('$name: renders under its CSP without a violation, and behaves', async (row) => {
    const shown = await row.make(await newUser(), PLAIN);
    const s = await session();
    await expectShown(s, await visit(s, shown.path), shown);
    if (row.behave) await row.behave(s, shown);
    await s.page.waitForLoadState('load');
    await expectClean(s);
  });

  it.each(PAGES.filter((row) => !row.printsNothingWritten))(
    '$name: what users wrote prints as text and never runs, CSP on and off',
    async (row) => {
      const u = await newUser();
      const pages: Shown[] = [];
      for (const text of XSS) pages.push(await row.make(u, text));
      // with the CSP, and without it (the escaping alone), side by side
      await Promise.all(
        [false, true].map(async (bypassCSP) => {
          const s = await session({ bypassCSP });
          for (const [i, shown] of pages.entries()) {
            try {
              await expectShown(s, await visit(s, shown.path), shown);
              if (shown.autoForward) await waitForLanding(s.page, shown.landing!);
              else await s.page.waitForLoadState('load');
              await expectClean(s, { csp: !bypassCSP });
            } catch (err) {
              const e = err as Error;
              e.message = `${XSS[i]} (bypassCSP ${bypassCSP}): ${e.message}`;
              throw e;
            }
          }
        }),
      );
    },
  );

  it('bio page on a 375 px phone: no horizontal scrolling, every button visible and at least 44 px tall; visits and clicks counted', async () => {
    const u = await newUser();
    const long = 'Supercalifragilisticexpialidocious'.repeat(2);
    const tag = uniq('phone');
    const res = await t
      .http()
      .post('/api/bio/add')
      .set(u.auth)
      .send({
        name: 'Phone',
        title: long,
        description: `${long} ${PLAIN}`,
        theme: 'dark',
        links: [
          { title: long, url: landing(tag) },
          ...[1, 2, 3, 4, 5, 6].map((n) => ({ title: `Link ${n}`, url: landing(uniq('n')) })),
        ],
        socials: {
          x: landing(uniq('x')),
          instagram: landing(uniq('i')),
          linkedin: landing(uniq('l')),
          youtube: landing(uniq('y')),
          github: landing(uniq('g')),
        },
      })
      .expect(200);
    const s = await session({
      viewport: { width: 375, height: 667 },
      isMobile: true,
      hasTouch: true,
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    });
    const response = await visit(s, new URL(res.body.url).pathname);
    expect(response.status()).toBe(200);
    await s.page.waitForLoadState('load');
    const sizes = await s.page.evaluate(() => {
      const root = (
        document as unknown as { documentElement: { scrollWidth: number; clientWidth: number } }
      ).documentElement;
      return { scroll: root.scrollWidth, client: root.clientWidth };
    });
    expect(sizes.client).toBe(375);
    expect(sizes.scroll).toBeLessThanOrEqual(sizes.client);
    // the dark theme applies
    expect(await s.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      'rgb(13, 17, 23)',
    );
    const links = s.page.getByRole('link');
    expect(await links.count()).toBe(12);
    for (const link of await links.all()) {
      await link.scrollIntoViewIfNeeded();
      expect(await link.isVisible()).toBe(true);
      const box = (await link.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    }
    await s.page.getByRole('link', { name: long, exact: true }).tap();
    await waitForLanding(s.page, tag);
    await expectClean(s);
    // the page view and the button, in the bio page's own statistics
    await eventually(async () => (await readStats(t, res.body.id)).clicks === 2);
  });

  it('the checks can fail: an injected inline script is blocked and reported under the CSP, and runs without it', async () => {
    const inject = (p: Page) =>
      p.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__xss = "injected"';
        document.body.append(script);
      });
    const strict = await session();
    await visit(strict, '/no-such-link-1');
    await inject(strict.page);
    for (let i = 0; i < 50 && strict.csp.length < 2; i++) await delay(20);
    // reported twice: by the event and on the console
    expect(strict.csp.sort()).toEqual([
      expect.stringMatching(
        /^Executing inline script violates the following Content Security Policy/,
      ),
      'script-src-elem inline  @ http://short.test/no-such-link-1',
    ]);
    expect(strict.xss).toEqual([]);

    const lax = await session({ bypassCSP: true });
    await visit(lax, '/no-such-link-2');
    await inject(lax.page);
    expect(lax.xss).toEqual(['injected @ http://short.test/no-such-link-2']);
    expect(await lax.page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBe('injected');
  });

  it('after the right password, a link with pixels fires its tags and then forwards', async () => {
    const u = await newUser();
    const ids: number[] = [];
    for (const p of PIXELS) ids.push(await addPixel(u, p.type, p.tag, 'px'));
    const tag = uniq('pwpx');
    const l = await addLink(t, u, { url: landing(tag), password: PASSWORD, pixels: ids });
    const s = await session();
    await visit(s, `/${l.alias}`);
    s.release();
    await s.page.waitForLoadState('load');
    expect(s.external).toEqual([]);
    await s.page.getByLabel('Enter the password to continue').fill(PASSWORD);
    await s.page.getByRole('button', { name: 'Continue' }).click();
    await waitForLanding(s.page, tag);
    expectPixelsFiredBeforeForward(s, tag);
    await expectClean(s);
  });

  it('fallbacks: without JavaScript the pixel and splash pages still forward; a pixel vendor that never answers does not hold the visitor', async () => {
    const u = await newUser();
    const ids = [await addPixel(u, PIXELS[0].type, PIXELS[0].tag, 'px')];
    const noJsTag = uniq('nojs');
    const noJs = await addLink(t, u, { url: landing(noJsTag), pixels: ids });
    const hungTag = uniq('hung');
    const hung = await addLink(t, u, { url: landing(hungTag), pixels: ids });
    await insertSplash(u, {
      title: 'Hi',
      message: '',
      buttonText: 'Go',
      countdown: 1,
      imageUrl: '',
    });
    const splashTag = uniq('nojs');
    const splash = await addLink(t, u, { url: landing(splashTag), type: 'splash' });

    const [a, b, c] = await Promise.all([
      session({ javaScriptEnabled: false }),
      session({ javaScriptEnabled: false }),
      session(),
    ]);
    // before c's page is asked for: its script's cap can only start later. (Taken when the page
    // was shown, the moment trailed the script's start by half a second on a busy machine.)
    const askedAt = Date.now();
    await Promise.all([
      visit(a, `/${noJs.alias}`),
      visit(b, `/${splash.alias}`),
      visit(c, `/${hung.alias}`),
    ]);
    a.release();
    // c's beacon stays unanswered, so its page never finishes loading: the script's cap forwards
    // (the meta refresh only counts from the load event)
    await Promise.all([
      waitForLanding(a.page, noJsTag),
      waitForLanding(b.page, splashTag),
      waitForLanding(c.page, hungTag, FORWARD_MAX_WAIT_MS + 2000),
    ]);
    // held for the cap, not forwarded as soon as the tag fired
    expect(landingHit(hungTag)!.at - askedAt).toBeGreaterThanOrEqual(FORWARD_MAX_WAIT_MS - 50);
    expect(a.external.filter((e) => e.url.startsWith(PIXELS[0].beacon))).toHaveLength(1);
    // the beacon was requested (the tag fired), never answered
    expect(c.external).toHaveLength(1);
    expect(c.external[0].url.startsWith(PIXELS[0].beacon)).toBe(true);
    expect(c.external[0].answeredAt).toBeUndefined();
    for (const s of [a, b, c]) expect([...s.csp, ...s.errors, ...s.xss]).toEqual([]);
  });

  it('the report page: sent without JavaScript under its CSP, a refused field shown next to it, no scrolling at 375 px', async () => {
    const u = await newUser();
    const l = await addLink(t, u, { url: landing(uniq('rep')) });
    const s = await session({ javaScriptEnabled: false, viewport: { width: 375, height: 740 } });
    const first = await visit(s, '/report');
    expect(first.status()).toBe(200);
    expect(first.headers()['content-security-policy']).toContain("form-action 'self'");
    expect(await s.page.title()).toBe('Report a short link');
    expect(await s.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await s.page.getByLabel('Short link').fill(`${MAIN}/${uniq('nope')}`);
    await s.page.getByLabel('Reason').selectOption('phishing');
    await s.page.getByRole('button', { name: 'Send report' }).click();
    await s.page.waitForURL(`${MAIN}/report`);
    const field = s.page.getByLabel('Short link');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await s.page.locator('#url-err').textContent()).toBe('url: no such short link');
    await field.fill(l.shorturl);
    await s.page.getByLabel('Details (optional)').fill(PLAIN);
    await s.page.getByRole('button', { name: 'Send report' }).click();
    await s.page.getByRole('heading', { name: 'Thank you' }).waitFor();
    const [row] = await t.db.query(`SELECT reason, details FROM abuse_reports WHERE link_id = $1`, [
      l.id,
    ]);
    expect(row).toEqual({ reason: 'phishing', details: PLAIN });
    expect([...s.csp, ...s.errors, ...s.xss]).toEqual([]);
  });
});
