import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import { createTestApp, TestApp, TestUser } from './app';
import { CHROMIUM, launchChromium } from './chromium';

/**
 * The dashboard's browser suites (test/web*.e2e-spec.ts; docs/dashboard.md): the app built from
 * the current sources, a real api listening on a port, and headless Debian Chromium that resolves
 * `short.test` (PUBLIC_URL in tests) to it. Elements are found by role and accessible name.
 */

export const MAIN = 'http://short.test';
export const ROOT = join(__dirname, '..', '..');
export const WEB = join(ROOT, 'dist', 'apps', 'web');
export const NARROW = { width: 375, height: 740 };

/** The newest modification time under a folder. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Builds the app (vite, into dist/apps/web) unless the build is newer than every source file:
 * the suites always test the current sources, and build once per run, not once per suite.
 */
export function buildDashboard(): void {
  const index = join(WEB, 'index.html');
  const sources = join(ROOT, 'apps', 'web');
  if (existsSync(index) && statSync(index).mtimeMs > newest(sources)) return;
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'apps/web/vite.config.mts', '--logLevel', 'warn'],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
}

export interface Opened {
  page: Page;
  /** CSP violations, script errors and failed requests (but the signed-out session probe). */
  problems: string[];
}

export interface WebSuite {
  /** The api under test (its database, Redis, `http()`). */
  readonly t: TestApp;
  readonly port: number;
  /**
   * A page in a fresh browser context (closed after the test), with the problems it meets.
   * `bypassCSP` only for the axe scan, which injects its script.
   */
  open(opts?: {
    viewport?: { width: number; height: number };
    bypassCSP?: boolean;
    acceptDownloads?: boolean;
    /** the browser's User-Agent (headless Chromium's own is counted as a bot by the statistics) */
    userAgent?: string;
  }): Promise<Opened>;
}

/**
 * Sets up one suite: `beforeAll` builds the app, starts the api (with `env`) on a port and a
 * browser; `afterEach` closes the test's contexts; `afterAll` stops both. Call it at the top of a
 * `describe`.
 */
export function webSuite(env: Record<string, string> = {}): WebSuite {
  let t: TestApp;
  let port = 0;
  let browser: Browser;
  let contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: the dashboard suites need Debian's chromium package (apt-get install -y chromium)`,
      );
    buildDashboard();
    t = await createTestApp(env);
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

  return {
    get t() {
      return t;
    },
    get port() {
      return port;
    },
    async open(opts = {}) {
      const context = await browser.newContext({
        viewport: opts.viewport,
        bypassCSP: opts.bypassCSP,
        acceptDownloads: opts.acceptDownloads,
        userAgent: opts.userAgent,
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
        // the session probe answers 401 when signed out: expected
        if (r.status() >= 400 && !r.url().endsWith('/auth/session'))
          problems.push(`${r.status()} ${r.url()}`);
      });
      return { page, problems };
    },
  };
}

/** Signs `user` in through the form and waits for the links page. */
export async function signIn(page: Page, user: TestUser): Promise<void> {
  await page.goto(`${MAIN}/app/sign-in`);
  await page.getByRole('textbox', { name: 'Email' }).fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
}

/** Signs in and opens an app path (`/qr`), waiting for its `<h1>` named `heading`. */
export async function openSignedIn(
  page: Page,
  user: TestUser,
  path: string,
  heading: string | RegExp,
): Promise<void> {
  await signIn(page, user);
  await page.goto(`${MAIN}/app${path}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/** The page's theme as drawn: whether it is dark, and the body's background and text colours. */
export async function themeOf(page: Page): Promise<{ dark: boolean; bg: string; fg: string }> {
  const [bg, fg] = (await page.evaluate(
    '(() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color]; })()',
  )) as [string, string];
  // relative luminance of an `rgb(r, g, b)` colour (WCAG), dark below the middle grey
  const [r, g, b] = (bg.match(/\d+(\.\d+)?/g) ?? ['255', '255', '255'])
    .slice(0, 3)
    .map((c) => Number(c) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return { dark: 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.18, bg, fg };
}

/**
 * axe-core's serious and critical violations on the page as it is now, in the light and the dark
 * theme (`prefers-color-scheme` emulated; a theme that is not drawn as asked — a dark scheme with
 * a light page — is a violation too). The page must have been opened with `bypassCSP` (axe is
 * injected as a script).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const theme = await themeOf(page);
    if (theme.dark !== (colorScheme === 'dark'))
      found.push(
        `${colorScheme}: the page is drawn ${theme.dark ? 'dark' : 'light'} (${theme.bg})`,
      );
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

/** The page's full width: no more than the viewport means no horizontal scroll. */
export const scrollWidth = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth') as Promise<number>;

/** Waits until the field is marked `aria-invalid="true"`. */
async function expectInvalid(field: Locator): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await field.getAttribute('aria-invalid')) === 'true') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the field was never marked aria-invalid');
}

/**
 * The message shown for the field labelled `label` (in `scope`: the page, or a form when labels
 * repeat): the text of its `aria-describedby` element,
 * once the field is marked invalid.
 */
export async function fieldError(scope: Page | Locator, label: string | RegExp): Promise<string> {
  const page = 'page' in scope && typeof scope.page === 'function' ? scope.page() : (scope as Page);
  const field = scope.getByLabel(label, { exact: typeof label === 'string' }).first();
  await expectInvalid(field);
  // the field may be described by a hint too: the message is the description that is an alert
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(/\s+/).filter(Boolean);
  for (const id of ids) {
    const described = page.locator(`[id="${id}"]`);
    if ((await described.getAttribute('role')) === 'alert')
      return (await described.textContent()) ?? '';
  }
  throw new Error(`no alert among the field's descriptions (${ids.join(', ') || 'none'})`);
}
