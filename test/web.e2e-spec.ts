import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { Browser, BrowserContext, Page } from 'playwright-core';

import { DASHBOARD_CSP, IMMUTABLE } from '../apps/api/src/dashboard/dashboard.handler';
import { createTestApp, createUser, expectError, TestApp, TestUser } from './support/app';
import { CHROMIUM, launchChromium } from './support/chromium';

/**
 * The dashboard (apps/web, served by the api at /app; docs/dashboard.md) in a real headless
 * Chromium, the way browser.e2e-spec.ts drives the public pages: `http://short.test` (PUBLIC_URL
 * in tests) is mapped to the api's port. The suite builds the app first (vite, into
 * dist/apps/web), so it always tests the current sources.
 *
 * Elements are found by role and accessible name (CONTRACT "Sign-in for people, and the
 * dashboard" lists the names outside tests rely on). A password input has no ARIA role (it is
 * not a `textbox`), so "Password" is found by its label.
 */

const MAIN = 'http://short.test';
const ROOT = join(__dirname, '..');
const WEB = join(ROOT, 'dist', 'apps', 'web');
/** The budget of compressed JavaScript for a first load (issue 30). */
const JS_BUDGET = 250 * 1024;
const NARROW = { width: 375, height: 740 };
/** What a hashed asset name looks like: `index-B7GK1bXF.js`. */
const HASHED = /^\/app\/assets\/[\w.-]+-[\w-]{8,}\.(js|css)$/;

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
  let t: TestApp;
  let port: number;
  let browser: Browser;
  let contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: the dashboard suite needs Debian's chromium package (apt-get install -y chromium)`,
      );
    // the app as `npm run build` makes it, before the api reads it at start
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'vite'),
      ['build', '--config', 'apps/web/vite.config.mts', '--logLevel', 'warn'],
      {
        cwd: ROOT,
        stdio: 'inherit',
        env: { ...process.env, NODE_ENV: 'production' },
      },
    );
    t = await createTestApp();
    await new Promise<void>((resolve) => t.server.listen(0, '127.0.0.1', resolve));
    port = (t.server.address() as AddressInfo).port;
    browser = await launchChromium(`MAP short.test 127.0.0.1:${port}`);
  }, 60_000);

  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    contexts = [];
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page in a fresh context, with the CSP violations, script errors and failed requests it met. */
  async function open(
    opts: { viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
  ): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({
      viewport: opts.viewport,
      bypassCSP: opts.bypassCSP,
    });
    contexts.push(context);
    context.setDefaultTimeout(5000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/content.security.policy/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`error: ${e.message}`));
    page.on('response', (r) => {
      // the session probe answers 401 (signed out) or 404 (no sessions yet): both expected
      if (r.status() >= 400 && !r.url().endsWith('/auth/session'))
        problems.push(`${r.status()} ${r.url()}`);
    });
    return { page, problems };
  }

  /** The index's own script and style files. */
  function assetsOf(html: string): string[] {
    return [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]);
  }

  /** axe-core's serious and critical violations on the page as it is now (light, then dark). */
  async function axeViolations(page: Page): Promise<string[]> {
    const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(source);
      const result = (await page.evaluate(
        "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) })))",
      )) as Array<{ id: string; impact: string; nodes: string[] }>;
      for (const v of result)
        if (v.impact === 'serious' || v.impact === 'critical')
          found.push(`${colorScheme}: ${v.id} (${v.impact}) at ${v.nodes.join(', ')}`);
    }
    return found;
  }

  const scrollWidth = (page: Page) =>
    page.evaluate('document.documentElement.scrollWidth') as Promise<number>;

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
    expect(refused?.length).toBeGreaterThan(0);
    expect(page.url()).toBe(`${MAIN}/app/sign-in`);

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

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
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

  it('has no serious or critical axe-core violation on the links page', async () => {
    const user = await createUser(t);
    const { page } = await open({ bypassCSP: true });
    expect(await linksPageViolations(page, user)).toEqual([]);
  });
});
