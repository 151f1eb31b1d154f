import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { Page } from 'playwright-core';

import { sha256 } from '@app/common';

import { DASHBOARD_CSP, IMMUTABLE } from '../apps/api/src/dashboard/dashboard.handler';
import { createUser, expectError, TestApp, TestUser } from './support/app';
import { moduleBin as bin } from './support/compile';
import {
  axeViolations,
  MAIN,
  NARROW,
  ROOT,
  scrollWidth,
  signIn,
  WEB,
  webSuite,
} from './support/web';

/**
 * The dashboard (apps/web, served by the api at /app; docs/dashboard.md) in a real headless
 * Chromium (test/support/web.ts): how the api serves it, the sign-in page, the shell, the links
 * page's first journey, and that the app's API types are those of the api's OpenAPI document.
 * Each area's pages have a suite of their own (test/web-<area>.e2e-spec.ts).
 *
 * Elements are found by role and accessible name (CONTRACT "Sign-in for people, and the
 * dashboard" lists the names outside tests rely on). A password input has no ARIA role (it is
 * not a `textbox`), so "Password" is found by its label.
 */

/** The budget of compressed JavaScript for a first load (issue 30). */
const JS_BUDGET = 250 * 1024;
/** What a hashed asset name looks like: `index-B7GK1bXF.js`. */
const HASHED = /^\/app\/assets\/[\w.-]+-[\w-]{8,}\.(js|css)$/;

/**
 * openapi-typescript's types for `doc` (its CLI: the package is ESM only), with a header, formatted
 * as the repository formats TypeScript.
 */
function webSchema(doc: object): string {
  const work = mkdtempSync(join(tmpdir(), 'web-schema-'));
  try {
    writeFileSync(join(work, 'openapi.json'), JSON.stringify(doc));
    execFileSync(
      process.execPath,
      [bin('openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'schema.d.ts'],
      { cwd: work, stdio: 'pipe' },
    );
    const header =
      "/**\n * Generated from the api's OpenAPI document by openapi-typescript: do not edit.\n * Regenerate with `npm run web:schema` (test/web.e2e-spec.ts checks it is current).\n */\n";
    return execFileSync(
      process.execPath,
      [bin('prettier/bin/prettier.cjs'), '--stdin-filepath', 'apps/web/src/api/schema.d.ts'],
      { cwd: ROOT, input: header + readFileSync(join(work, 'schema.d.ts'), 'utf8') },
    ).toString();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A GET sent exactly as written (no client-side `..` resolution), answered in full. */
function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { Host: 'short.test', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
            bytes: Buffer.concat(chunks).length,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the dashboard at /app', () => {
  const suite = webSuite();
  const open = suite.open;
  let t: TestApp;
  let port: number;
  beforeAll(() => {
    t = suite.t;
    port = suite.port;
  });

  /** The index's own script and style files. */
  function assetsOf(html: string): string[] {
    return [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]);
  }

  /**
   * The app's API types (apps/web/src/api/schema.d.ts) are generated from the api's OpenAPI
   * document by openapi-typescript: they must be those of the document the api serves now.
   * `npm run web:schema` rewrites the file (this test with WRITE_WEB_SCHEMA=1).
   */
  it('types the app with the OpenAPI document the api serves (apps/web/src/api/schema.d.ts is current)', async () => {
    const doc = (await t.http().get('/docs-json').expect(200)).body;
    const generated = webSchema(doc);
    const file = join(ROOT, 'apps', 'web', 'src', 'api', 'schema.d.ts');
    if (process.env.WRITE_WEB_SCHEMA === '1') writeFileSync(file, generated);
    const committed = readFileSync(file, 'utf8');
    if (committed !== generated)
      throw new Error(
        'apps/web/src/api/schema.d.ts is not the OpenAPI document the api serves: run npm run web:schema',
      );
    expect(committed).toContain("'/api/url/add'");
  });

  it('answers /app, /app/ and client routes with index.html: no-cache, the CSP, nosniff', async () => {
    const index = readFileSync(join(WEB, 'index.html'), 'utf8');
    for (const path of ['/app', '/app/', '/app/links', '/app/some/route', '/app/sign-in?x=1']) {
      const res = await t.http().get(path).set('Host', 'short.test');
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(res.text).toBe(index);
    }
    // no inline script or style in the page: the CSP would block it
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/<style|\sstyle=/);
    const csp = DASHBOARD_CSP;
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    // a method other than GET and HEAD is refused, as on every public path
    expect((await t.http().post('/app').set('Host', 'short.test')).status).toBe(405);
  });

  it('serves the hashed assets as immutable; an unknown one is a 404, not the page', async () => {
    const index = readFileSync(join(WEB, 'index.html'), 'utf8');
    const assets = assetsOf(index);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      expect(asset).toMatch(HASHED);
      const res = await t.http().get(asset).set('Host', 'short.test');
      expect([asset, res.status]).toEqual([asset, 200]);
      expect(res.headers['cache-control']).toBe(IMMUTABLE);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toMatch(/^text\/(javascript|css); charset=utf-8$/);
    }
    const gone = await t.http().get('/app/assets/index-Gone1234.js').set('Host', 'short.test');
    expect(gone.status).toBe(404);
  });

  it('keeps the first load under 250 KB of compressed JavaScript', async () => {
    const index = readFileSync(join(WEB, 'index.html'), 'utf8');
    let total = 0;
    for (const asset of assetsOf(index).filter((a) => a.endsWith('.js'))) {
      const res = await rawGet(port, asset, { 'Accept-Encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      total += res.bytes;
      // as served: no bigger than gzip makes it
      const raw = readFileSync(join(WEB, asset.slice('/app/'.length)));
      expect(res.bytes).toBeLessThanOrEqual(gzipSync(raw).length);
    }
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThan(JS_BUDGET);
  });

  it('refuses path traversal, plain and encoded, with a 404', async () => {
    for (const path of [
      '/app/../../etc/passwd',
      '/app/../../../../../../etc/passwd',
      '/app/assets/../../../package.json',
      '/app/%2e%2e/%2e%2e/etc/passwd',
      '/app/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      '/app/..%2f..%2fpackage.json',
      '/app/..%5c..%5cpackage.json',
      '/app/%252e%252e/etc/passwd',
      '/app//etc/passwd',
    ]) {
      const res = await rawGet(port, path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).not.toMatch(/root:|"dependencies"/);
    }
  });

  it('keeps app a reserved path: no alias can take it', async () => {
    const user = await createUser(t);
    for (const custom of ['app', 'APP'])
      expectError(
        await t
          .http()
          .post('/api/url/add')
          .set(user.auth)
          .send({ url: 'https://example.com/', custom }),
        400,
        /^custom: /,
      );
  });

  it('shows the sign-in form, by role and label, with no CSP violation or script error', async () => {
    const { page, problems } = await open();
    await page.goto(`${MAIN}/app/`);
    await page.waitForURL(`${MAIN}/app/sign-in`);
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await page.getByRole('textbox', { name: 'Email' }).waitFor();
    await page.getByLabel('Password').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(problems).toEqual([]);
  });

  it('works by keyboard alone: Tab reaches Email, Password, then Sign in', async () => {
    const { page } = await open();
    await page.goto(`${MAIN}/app/sign-in`);
    await page.getByRole('textbox', { name: 'Email' }).waitFor();
    const focused = () =>
      page.evaluate(
        '(() => { const e = document.activeElement; return e && (e.labels && e.labels[0] ? e.labels[0].textContent : e.textContent); })()',
      );
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Email');
    await page.keyboard.type('nobody@example.com');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Password');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Sign in');
  });

  it('has no serious or critical axe-core violation on the sign-in page, light or dark', async () => {
    // axe is injected as a script: the page's CSP (no inline script) is bypassed for it alone
    const { page } = await open({ bypassCSP: true });
    await page.goto(`${MAIN}/app/sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('fits 375 px without horizontal scroll', async () => {
    const { page } = await open({ viewport: NARROW });
    await page.goto(`${MAIN}/app/sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
  });

  /**
   * Wrong password, then right → the links page with the whole navigation (at 375 px); "New
   * link" refuses a bad URL with the API's message next to the field, creates a good one, which
   * the list shows; a placeholder page keeps its heading; sign out.
   */
  async function journey(page: Page, problems: string[], user: TestUser): Promise<void> {
    await page.goto(`${MAIN}/app`);
    await page.waitForURL(`${MAIN}/app/sign-in`);
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refused = await page.getByRole('alert').textContent();
    expect(refused).toMatch(/Wrong e-mail or password/);
    expect(page.url()).toBe(`${MAIN}/app/sign-in`);
    expect(await page.context().cookies()).toEqual([]);

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${MAIN}/app/links`);
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.getByText('No links yet').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of [
      'Links',
      'QR codes',
      'Bio pages',
      'Statistics',
      'Domains',
      'Webhooks',
      'Import',
      'Team',
      'Settings',
    ])
      await nav.getByRole('link', { name, exact: true }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);

    await page.getByRole('button', { name: 'New link' }).click();
    const destination = page.getByRole('textbox', { name: 'Destination URL' });
    await destination.fill('not a url');
    await page.getByRole('button', { name: 'Create' }).click();
    // the API's message, next to the field it names (the field's description)
    await page.locator('input[aria-invalid="true"]').waitFor();
    const describedBy = await destination.getAttribute('aria-describedby');
    const message = await page.locator(`[id="${describedBy}"]`).textContent();
    expect(message).toMatch(/^url: /);

    const target = `https://example.com/dashboard-${Date.now()}`;
    await destination.fill(target);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText(target).waitFor();
    await page.getByText('1 link', { exact: true }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Destination URL' }).count()).toBe(0);
    const listed = await t.http().get('/api/urls').set(user.auth);
    expect(listed.body.data.urls.map((l: { longurl: string }) => l.longurl)).toEqual([target]);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);

    // a placeholder page keeps its heading
    await nav.getByRole('link', { name: 'Statistics' }).click();
    await page.getByRole('heading', { name: 'Statistics' }).waitFor();
    expect(page.url()).toBe(`${MAIN}/app/stats`);

    const session = (await page.context().cookies()).find((c) => c.name === 'lm_session');
    expect(session).toBeDefined();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    // the session is ended on the server, not only forgotten by the browser
    await t.http().get('/auth/session').set('Cookie', `lm_session=${session!.value}`).expect(401);
    await page.goto(`${MAIN}/app/links`);
    await page.waitForURL(`${MAIN}/app/sign-in`);
    // the refused sign-in answered 401, the bad URL 400: those are expected
    expect(problems.filter((p) => !/^40[01] /.test(p))).toEqual([]);
  }

  /** Signs in and scans the links page with its "New link" form open. */
  async function linksPageViolations(page: Page, user: TestUser): Promise<string[]> {
    await page.goto(`${MAIN}/app/sign-in`);
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Links' }).waitFor();
    await page.getByRole('button', { name: 'New link' }).click();
    await page.getByRole('textbox', { name: 'Destination URL' }).waitFor();
    return axeViolations(page);
  }

  it('journey: sign in, links, New link, sign out', async () => {
    const user = await createUser(t);
    const { page, problems } = await open({ viewport: NARROW });
    await journey(page, problems, user);
  });

  it('keeps a list of 10 000 links to one page of rows, paged by the server', async () => {
    const user = await createUser(t);
    await t.db.query(
      `INSERT INTO links (user_id, alias, url)
       SELECT $1, $2 || g, 'https://many.example/' || g FROM generate_series(1, 10000) g`,
      [user.id, `many${user.id}x`],
    );
    const { page, problems } = await open();
    const pages: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/urls')) pages.push(new URL(r.url()).search);
    });
    await signIn(page, user);
    await page.getByText('10000 links', { exact: true }).waitFor();
    const rows = page.getByRole('region', { name: 'Your links' }).getByRole('listitem');
    expect(await rows.count()).toBe(20);
    await page.getByText('Page 1 of 500').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 500').waitFor();
    expect(await rows.count()).toBe(20);
    // each page is asked of the server, 20 rows at a time
    expect(pages.every((q) => /[?&]limit=20\b/.test(q))).toBe(true);
    expect(pages.some((q) => /[?&]page=2\b/.test(q))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('returns to sign-in, saying the session ended, when the session ends under the app', async () => {
    const user = await createUser(t);
    const { page, problems } = await open();
    await signIn(page, user);
    // the session ends elsewhere (signed out from another tab or device)
    const cookie = (await page.context().cookies()).find((c) => c.name === 'lm_session');
    expect(cookie).toBeDefined();
    await t.http().delete('/auth/session').set('Cookie', `lm_session=${cookie!.value}`).expect(200);
    // the next action that calls the api (the search) finds the session gone
    await page.getByRole('searchbox', { name: 'Search links' }).fill('late');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(page.url()).toBe(`${MAIN}/app/sign-in`);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(
      'Your session has ended: sign in again.',
    );
    expect(problems.filter((p) => !/^401 /.test(p))).toEqual([]);
  });

  it('session expiry: a session past SESSION_DAYS is gone; the next action and a new load go to sign-in', async () => {
    const user = await createUser(t);
    const { page, problems } = await open();
    const before = Date.now();
    await signIn(page, user);
    // the browser keeps the cookie SESSION_DAYS (14), the server the session as long
    const cookie = (await page.context().cookies()).find((c) => c.name === 'lm_session');
    expect(cookie).toBeDefined();
    const days = (cookie!.expires * 1000 - before) / 86_400_000;
    expect(days).toBeGreaterThan(13.99);
    expect(days).toBeLessThanOrEqual(14.01);
    const key = t.redis.key('session', sha256(cookie!.value));
    expect(await t.redis.client.pttl(key)).toBeGreaterThan(14 * 86_400_000 - 60_000);
    // its lifetime runs out (Redis expires it, as it would after 14 days without use)
    expect(await t.redis.client.pexpire(key, 1)).toBe(1);
    for (let i = 0; i < 50 && (await t.redis.client.exists(key)); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await t.redis.client.exists(key)).toBe(0);

    // the next action that calls the api says so and returns to the sign-in page
    await page.getByRole('searchbox', { name: 'Search links' }).fill('late');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(`${MAIN}/app/sign-in`);
    await expect(page.getByRole('alert').textContent()).resolves.toBe(
      'Your session has ended: sign in again.',
    );
    expect((await t.http().get('/api/urls').set(user.auth)).body.data.urls).toEqual([]);
    // a new load of an app page (the browser still sends the old cookie) is the sign-in page too
    await page.goto(`${MAIN}/app/links`);
    await page.waitForURL(`${MAIN}/app/sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(problems.filter((p) => !/^401 /.test(p))).toEqual([]);
  });

  it('works by keyboard alone in the shell: skip link, the navigation, focus on the new page', async () => {
    const user = await createUser(t);
    const { page, problems } = await open();
    await signIn(page, user);
    await page.goto(`${MAIN}/app/links`);
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const focused = () =>
      page.evaluate(
        '(() => { const e = document.activeElement; return e ? `${e.tagName} ${e.id || e.textContent}` : null; })()',
      );
    /** the focused element's outline, as drawn (a visible focus) */
    const outline = () =>
      page.evaluate(
        '(() => { const s = getComputedStyle(document.activeElement); return `${s.outlineStyle} ${s.outlineWidth}`; })()',
      );
    // a page load puts the focus on the page's content; Shift+Tab goes back through the header
    // (sign out, the navigation) to "Skip to content", shown on screen with a visible focus
    expect(await focused()).toBe('MAIN main');
    const toSkip = async () => {
      const passed: string[] = [];
      for (let i = 0; i < 25 && passed[passed.length - 1] !== 'A Skip to content'; i++) {
        await page.keyboard.press('Shift+Tab');
        passed.push((await focused()) as string);
      }
      return passed;
    };
    const passed = await toSkip();
    expect(passed).toEqual(expect.arrayContaining(['BUTTON Sign out', 'A Settings', 'A Links']));
    expect(passed[passed.length - 1]).toBe('A Skip to content');
    expect(await outline()).toBe('solid 3px');
    const skip = await page.getByRole('link', { name: 'Skip to content' }).boundingBox();
    expect(skip!.x).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('MAIN main');
    // the navigation by Tab and Enter: the page changes, the focus goes to its content
    await toSkip();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('A Links');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('A QR codes');
    expect(await outline()).toBe('solid 3px');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${MAIN}/app/qr`);
    await page.getByRole('heading', { name: 'QR codes', level: 1 }).waitFor();
    expect(await focused()).toBe('MAIN main');
    // the page's first control follows
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('A New QR code');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New QR code', level: 1 }).waitFor();
    expect(problems).toEqual([]);
  });

  it('keeps the first load, as the browser fetches it (sign-in, then the links page), under 250 KB of compressed JavaScript', async () => {
    const user = await createUser(t);
    const { page, problems } = await open();
    const scripts: Array<Promise<number>> = [];
    const encodings = new Set<string>();
    page.on('requestfinished', (r) => {
      if (r.resourceType() !== 'script') return;
      scripts.push(
        (async () => {
          const response = await r.response();
          encodings.add((await response?.headerValue('content-encoding')) ?? 'identity');
          return (await r.sizes()).responseBodySize;
        })(),
      );
    });
    await signIn(page, user);
    await page.getByText('No links yet').waitFor();
    const sizes = await Promise.all(scripts);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(sizes.length).toBeGreaterThan(0);
    expect([...encodings]).toEqual(['gzip']);
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThan(JS_BUDGET);
    expect(problems).toEqual([]);
  });

  it('has no serious or critical axe-core violation on the links page', async () => {
    const user = await createUser(t);
    const { page } = await open({ bypassCSP: true });
    expect(await linksPageViolations(page, user)).toEqual([]);
  });
});
