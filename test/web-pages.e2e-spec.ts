import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Page } from 'playwright-core';

import { VisitRecorder } from '@app/stats';

import { createUser, TestUser } from './support/app';
import { BROWSER_UA, eventually } from './support/stats';
import {
  axeViolations,
  MAIN,
  NARROW,
  ROOT,
  scrollWidth,
  signIn,
  themeOf,
  webSuite,
} from './support/web';

/**
 * Every page of the dashboard, one after the other, 375 px wide: no horizontal scroll and no
 * serious or critical axe-core violation in the light and the dark theme (issue 30's quality bar,
 * docs/dashboard.md). Each area's suite checks its pages in their states too; this one is the
 * list of every route, checked alike, and it fails when the app gains a route that is not in it:
 * the routes are read from the app's sources (the navigation's `PAGES`, the links and admin
 * areas' `SECTIONS`, each page's `/new` and `/<id>` sub-routes).
 */

const SRC = join(ROOT, 'apps', 'web', 'src');
const source = (file: string) => readFileSync(join(SRC, file), 'utf8');

/**
 * The routes of the app as its sources declare them, a number written `<n>`: the paths of
 * `PAGES` (Shell.tsx), of the links and admin areas' `SECTIONS`, and each page file's sub-routes
 * (`props.sub === '/new'`, and regular expressions of a number: `/^\/(\d+)$/`,
 * `/^\/admin\/users\/(\d+)$/`).
 */
function declaredRoutes(): string[] {
  const shell = source('Shell.tsx');
  const routes = new Set<string>();
  const pages = [
    ...shell.matchAll(/\{ path: '(\/[\w-]+)', name: '[^']+', page: \(sub\) => <(\w+)/g),
  ];
  expect(pages.length).toBeGreaterThanOrEqual(10);
  for (const [, path, component] of pages) {
    routes.add(path);
    const lazy = new RegExp(
      `const ${component} = later\\(\\(\\) => import\\('\\./pages/(\\w+)'\\)`,
    );
    const eager = new RegExp(`import \\{ ${component} \\} from '\\./pages/(\\w+)'`);
    const file = (lazy.exec(shell) ?? eager.exec(shell))?.[1];
    if (!file) throw new Error(`no source file found for ${component} (${path})`);
    const text = source(join('pages', `${file}.tsx`));
    for (const [, to] of text.matchAll(/\bto: '(\/[\w/-]+)'/g)) routes.add(to);
    if (text.includes("props.sub === '/new'")) routes.add(`${path}/new`);
    for (const [, prefix] of text.matchAll(
      /\/\^((?:\\\/[\w-]+)*)\\\/\((?:\\d\+|\[1-9\]\\d\{0,15\})\)/g,
    )) {
      const inner = prefix.replace(/\\\//g, '/');
      routes.add(`${inner.startsWith(path) ? inner : path + inner}/<n>`);
    }
  }
  return [...routes].sort();
}

/** A state of a page to check: where, its `<h1>`, what to open first. */
interface Stop {
  path: string;
  heading: string | RegExp;
  /** what the check is called in a failure (the path, unless several states share it) */
  what?: string;
  ready?: (page: Page) => Promise<unknown>;
}

describe('the dashboard: every page at 375 px, axe-core light and dark', () => {
  const suite = webSuite();
  const http = () => suite.t.http();
  const uniq = (p: string) => `${p}${process.pid}${Date.now().toString(36)}`;
  const long = `https://example.com/${'a-very-long-path-segment/'.repeat(6)}end`;

  let admin: TestUser;
  let plain: TestUser;
  const ids: Record<string, number> = {};

  /** POSTs as the admin (or `as`), expecting 200; the answer's `id`. */
  async function add(path: string, body: object, as?: TestUser): Promise<number> {
    const res = await http()
      .post(path)
      .set((as ?? admin).auth)
      .send(body);
    expect([path, res.status, res.body.error]).toEqual([path, 200, 0]);
    return res.body.id;
  }

  beforeAll(async () => {
    const t = suite.t;
    admin = await createUser(t, { admin: true, plan: 'Pro' });
    plain = await createUser(t);
    // a member of another workspace too: the header has its "Workspace" choice on every page
    const other = await createUser(t, { plan: 'Pro' });
    await add('/api/team/add', { email: admin.email, role: 'editor' }, other);

    ids.link = await add('/api/url/add', {
      url: long,
      title: 'A link with a rather long title to wrap on a narrow screen',
      geotarget: [{ location: 'DE', link: long }],
      parameters: [{ name: 'utm_source', value: 'newsletter' }],
    });
    const details = (await http().get(`/api/url/${ids.link}`).set(admin.auth).expect(200)).body
      .details;
    // a real visit through the public redirect, recorded: the charts have something to draw
    const visit = await http()
      .get(`/${details.alias}`)
      .set('Host', 'short.test')
      .set('User-Agent', BROWSER_UA)
      .set('X-Forwarded-For', '8.8.8.8')
      .redirects(0);
    expect(visit.status).toBe(302);
    await eventually(async () => {
      await t.app.get(VisitRecorder).flush();
      const stats = await http().get(`/api/url/${ids.link}/stats`).set(admin.auth);
      return stats.body.data?.clicks === 1;
    });

    ids.qr = await add('/api/qr/add', { type: 'text', data: 'Hello', name: 'Table menu' });
    ids.bio = await add('/api/bio/add', {
      name: 'Narrow',
      title: 'A title',
      links: [{ title: 'One', url: long }],
      socials: { x: 'https://x.example/narrow' },
    });
    await add('/api/campaign/add', { name: 'A campaign with a long name', slug: uniq('slug-') });
    await add('/api/channel/add', { name: 'Channel', description: long, color: '#1e90ff' });
    await add('/api/pixel/add', { type: 'vendor01pixel', name: 'Pixel', tag: 'AW-1' });
    await add('/api/overlay/add', { type: 'message', name: 'Overlay', link: long });
    await add('/api/splash/add', { name: 'Splash', link: long });
    await add('/api/domain/add', { domain: `https://${uniq('a-long-subdomain-')}.brand.example` });
    ids.webhook = await add('/api/webhook/add', {
      url: 'https://hooks.example/a/rather/long/path/for/a/webhook/endpoint',
      events: ['link.deleted'],
    });
    // no worker here: the import stays queued, its page shows the bar at 0
    ids.import = await add('/api/import', { csv: `url\n${long}\n` });
    await add('/api/admin/blocklist/add', { entry: `${uniq('blocked-')}.test` });
    const report = await http()
      .post('/api/report')
      .set('X-Forwarded-For', '203.0.113.78')
      .send({ url: details.shorturl, reason: 'spam', details: 'a report with some details' });
    expect(report.status).toBe(200);
  });

  /** Opens the resource page's "New …" form once its list is there. */
  const newForm = (noun: string) => async (page: Page) => {
    await page.getByRole('heading', { level: 2 }).first().waitFor();
    await page.getByRole('button', { name: `New ${noun}` }).click();
    await page.getByRole('form', { name: `New ${noun}` }).waitFor();
  };

  /** Every route of the app, and the states of a page that show more (forms, results). */
  function stops(): Stop[] {
    return [
      {
        path: '/links',
        heading: 'Links',
        ready: (page) =>
          page.getByRole('region', { name: 'Your links' }).getByRole('listitem').first().waitFor(),
      },
      {
        path: '/links',
        what: '/links, "New link" with every option',
        heading: 'Links',
        ready: async (page) => {
          await page.getByRole('button', { name: 'New link' }).click();
          await page.getByText('More options').click();
          for (const name of [
            'Add country rule',
            'Add device rule',
            'Add language rule',
            'Add parameter',
          ])
            await page.getByRole('button', { name }).click();
        },
      },
      {
        path: '/links',
        what: '/links, "Shorten several" with its results',
        heading: 'Links',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Shorten several' }).click();
          await page
            .getByLabel('URLs to shorten, one a line')
            .fill(`https://example.com/one\n${long}/bulk\nnot a url`);
          await page.getByRole('button', { name: 'Shorten all' }).click();
          await page.getByRole('heading', { name: '2 created, 1 refused' }).waitFor();
        },
      },
      {
        path: `/links/${ids.link}`,
        heading: /^Link /,
        ready: async (page) => {
          await page.getByRole('button', { name: 'Edit' }).click();
          await page.getByText('More options').click();
        },
      },
      { path: '/links/campaigns', heading: 'Campaigns', ready: newForm('campaign') },
      { path: '/links/channels', heading: 'Channels', ready: newForm('channel') },
      { path: '/links/pixels', heading: 'Pixels', ready: newForm('pixel') },
      { path: '/links/overlays', heading: 'Overlays', ready: newForm('overlay') },
      { path: '/links/splash', heading: 'Splash pages', ready: newForm('splash page') },
      {
        path: '/links/nowhere',
        heading: 'Page not found',
        ready: (page) => page.getByRole('alert').waitFor(),
      },
      { path: '/qr', heading: 'QR codes', ready: (page) => page.getByText('1 QR code').waitFor() },
      {
        path: '/qr/new',
        heading: 'New QR code',
        ready: async (page) => {
          await page.getByLabel('Type', { exact: true }).selectOption('wifi');
          await page.getByRole('img', { name: /^Preview of the QR code/ }).waitFor();
        },
      },
      { path: `/qr/${ids.qr}`, heading: 'Table menu' },
      {
        path: '/bio',
        heading: 'Bio pages',
        ready: (page) => page.getByText('1 bio page').waitFor(),
      },
      {
        path: '/bio/new',
        heading: 'New bio page',
        ready: (page) => page.getByLabel('Theme', { exact: true }).selectOption('dark'),
      },
      {
        path: `/bio/${ids.bio}`,
        heading: 'Narrow',
        ready: (page) => page.getByText('Social links (1)').click(),
      },
      {
        path: '/stats',
        heading: 'Statistics',
        ready: async (page) => {
          await page.getByRole('img', { name: /: 1 in total$/ }).waitFor();
          await page.locator('figure canvas').first().waitFor();
        },
      },
      {
        path: `/stats/${ids.link}`,
        heading: 'Link statistics',
        ready: async (page) => {
          await page.getByRole('img', { name: /: 1 in total$/ }).waitFor();
          await page.locator('figure canvas').first().waitFor();
          await page.getByText('Show as table').click();
          await page
            .getByRole('combobox', { name: 'Range' })
            .selectOption({ label: 'Custom dates' });
        },
      },
      { path: '/domains', heading: 'Domains', ready: newForm('domain') },
      {
        path: '/webhooks',
        heading: 'Webhooks',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Add webhook' }).click();
          await page.getByRole('textbox', { name: 'Endpoint URL' }).waitFor();
        },
      },
      {
        path: `/webhooks/${ids.webhook}`,
        heading: 'Webhook deliveries',
        ready: (page) => page.getByText('No deliveries yet', { exact: false }).waitFor(),
      },
      {
        path: '/import',
        heading: 'Import',
        ready: (page) => page.getByLabel('CSV file').waitFor(),
      },
      {
        path: `/import/${ids.import}`,
        heading: 'Import',
        ready: (page) => page.getByRole('progressbar', { name: 'Import progress' }).waitFor(),
      },
      {
        path: '/team',
        heading: 'Team',
        ready: (page) => page.getByRole('button', { name: 'New key' }).waitFor(),
      },
      {
        path: '/settings',
        heading: 'Settings',
        ready: async (page) => {
          await page.getByRole('textbox', { name: 'Email address' }).waitFor();
          await page.getByRole('button', { name: 'Rotate API key' }).waitFor();
        },
      },
      {
        path: '/admin',
        heading: 'Users',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Add user' }).click();
          await page.getByRole('form', { name: 'Add user' }).waitFor();
        },
      },
      {
        path: `/admin/users/${plain.id}`,
        heading: `User ${plain.username}`,
        ready: async (page) => {
          await page.getByRole('button', { name: 'Create login link' }).click();
          await page.getByRole('textbox', { name: 'Login link' }).waitFor();
        },
      },
      { path: '/admin/plans', heading: 'Plans' },
      {
        path: '/admin/blocklist',
        heading: 'Blocklist',
        ready: (page) => page.getByRole('table').waitFor(),
      },
      { path: '/admin/links', heading: 'Disabled links' },
      {
        path: '/admin/reports',
        heading: 'Reports',
        ready: (page) => page.getByRole('table').waitFor(),
      },
      { path: '/nowhere', heading: 'Page not found' },
    ];
  }

  /** The page's width and axe's findings, as one comparable line per state. */
  async function check(page: Page, stop: Stop): Promise<string[]> {
    await page.goto(`${MAIN}/app${stop.path}`);
    await page.getByRole('heading', { name: stop.heading, level: 1 }).waitFor();
    await stop.ready?.(page);
    const what = stop.what ?? stop.path;
    const found: string[] = [];
    const width = await scrollWidth(page);
    if (width > NARROW.width) found.push(`${what}: ${width} px wide`);
    for (const v of await axeViolations(page)) found.push(`${what}: ${v}`);
    // the next page starts in the light theme again
    await page.emulateMedia({ colorScheme: 'light' });
    return found;
  }

  it('checks every route the app declares (a new page must be added here)', () => {
    const declared = declaredRoutes();
    // the sources' routes, as the parser reads them today (a new one fails the next line)
    expect(declared).toEqual(
      expect.arrayContaining(['/links/<n>', '/qr/new', '/admin/users/<n>', '/stats/<n>']),
    );
    const paths = ['/sign-in', ...stops().map((s) => s.path)];
    const missing = declared.filter((route) => {
      const pattern = new RegExp(`^${route.replace('<n>', '\\d+')}$`);
      return !paths.some((p) => pattern.test(p));
    });
    expect(missing).toEqual([]);
  });

  it('every page, signed in as an admin with a second workspace: fits 375 px, no axe violation light or dark', async () => {
    const { page, problems } = await suite.open({ viewport: NARROW, bypassCSP: true });
    const found = await check(page, {
      path: '/sign-in',
      heading: 'Sign in',
      ready: (p) => p.getByRole('button', { name: 'Sign in' }).waitFor(),
    });
    await signIn(page, admin);
    // the header has the workspace choice (the widest header there is)
    await page.getByRole('combobox', { name: 'Workspace' }).waitFor();
    for (const stop of stops()) found.push(...(await check(page, stop)));
    expect(found).toEqual([]);
    // the refused line of "Shorten several" is the only failed request
    expect(problems.filter((p) => !/^400 .*\/api\/url\/bulk$/.test(p))).toEqual([]);
  }, 240_000);

  it('"Admins only" for a non-admin at /app/admin: fits 375 px, no axe violation light or dark', async () => {
    const { page } = await suite.open({ viewport: NARROW, bypassCSP: true });
    await signIn(page, plain);
    expect(
      await check(page, {
        path: '/admin',
        heading: 'Admin',
        ready: (p) => p.getByRole('alert').getByText('Admins only.').waitFor(),
      }),
    ).toEqual([]);
  });

  it('draws the theme the system asks for: light, or dark (prefers-color-scheme), on every page kind', async () => {
    const { page } = await suite.open({ viewport: NARROW });
    const themes: string[] = [];
    const record = async (where: string) => {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        const theme = await themeOf(page);
        themes.push(`${where} ${colorScheme}: ${theme.dark ? 'dark' : 'light'}`);
      }
    };
    await page.goto(`${MAIN}/app/sign-in`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await record('sign-in');
    await signIn(page, admin);
    await record('links');
    await page.goto(`${MAIN}/app/stats/${ids.link}`);
    await page.locator('figure canvas').first().waitFor();
    await record('statistics');
    expect(themes).toEqual(
      ['sign-in', 'links', 'statistics'].flatMap((w) => [`${w} light: light`, `${w} dark: dark`]),
    );
    // dark: light text on a dark background, the cards and fields dark too
    await page.emulateMedia({ colorScheme: 'dark' });
    const colours = (await page.evaluate(
      "[getComputedStyle(document.body).color, getComputedStyle(document.querySelector('select')).backgroundColor]",
    )) as string[];
    expect(colours[0]).toBe('rgb(236, 236, 236)');
    expect(colours[1]).not.toBe('rgb(255, 255, 255)');
  });
});
