import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { VisitRecorder } from '@app/stats';

import { createUser, TestUser } from './support/app';
import { BROWSER_UA, eventually, foldStats } from './support/stats';
import { MAIN, ROOT, signIn, webSuite } from './support/web';

/**
 * The screenshots of the dashboard's main pages in docs/screenshots (the README shows one), taken
 * from a signed-in user with a few links, visits, a QR code and a bio page. In a normal run they go
 * to a temporary folder and the suite checks that each page rendered (its heading, no script
 * error, no failed request, a PNG of the viewport); `npm run web:screenshots` writes them to
 * docs/screenshots.
 */

const WRITE = process.env.WRITE_SCREENSHOTS === '1';
const VIEWPORT = { width: 1200, height: 800 };

/** The pages shot: file name, path below /app, the heading to wait for. */
const PAGES: Array<{ file: string; path: string; heading: string | RegExp }> = [
  { file: 'links.png', path: '/links', heading: 'Links' },
  { file: 'qr-codes.png', path: '/qr', heading: 'QR codes' },
  { file: 'bio-pages.png', path: '/bio', heading: 'Bio pages' },
  { file: 'domains.png', path: '/domains', heading: 'Domains' },
  { file: 'webhooks.png', path: '/webhooks', heading: 'Webhooks' },
  { file: 'import.png', path: '/import', heading: 'Import' },
  { file: 'team.png', path: '/team', heading: 'Team' },
  { file: 'settings.png', path: '/settings', heading: 'Settings' },
];

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('the dashboard screenshots (docs/screenshots)', () => {
  const suite = webSuite();
  let user: TestUser;
  let out: string;
  /** the first link's statistics page, with its visits */
  let statsPath = '/stats';

  beforeAll(async () => {
    const t = suite.t;
    out = WRITE ? join(ROOT, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'shots-'));
    mkdirSync(out, { recursive: true });
    user = await createUser(t, { plan: 'Pro' });
    const targets = [
      ['https://example.com/spring-sale', 'Spring sale', 'spring'],
      ['https://example.com/blog/launch-notes', 'Launch notes', 'launch'],
      ['https://example.com/docs/getting-started', 'Getting started', 'start'],
    ];
    const visitors = ['81.2.69.142', '2.16.5.1', '5.35.192.1', '24.48.0.1', '1.0.16.1'];
    let visits = 0;
    for (const [url, title, custom] of targets) {
      const tag = `${custom}${user.id}`;
      const res = await t
        .http()
        .post('/api/url/add')
        .set(user.auth)
        .send({ url, title, custom: tag });
      expect(res.status).toBe(200);
      if (statsPath === '/stats') statsPath = `/stats/${res.body.id}`;
      for (const ip of visitors) {
        const visit = await t
          .http()
          .get(`/${tag}`)
          .set('Host', 'short.test')
          .set('User-Agent', BROWSER_UA)
          .set('X-Forwarded-For', ip)
          .set('Referer', 'https://news.example/today')
          .redirects(0);
        expect(visit.status).toBe(302);
        visits += 1;
      }
    }
    // the visits written and folded, as the worker would
    await eventually(async () => {
      await t.app.get(VisitRecorder).flush();
      const stats = await t.http().get('/api/stats').set(user.auth);
      return stats.body.data?.clicks === visits;
    });
    await foldStats(t);
    await t
      .http()
      .post('/api/qr/add')
      .set(user.auth)
      .send({ type: 'link', data: 'https://example.com/menu', name: 'Table menu' })
      .expect(200);
    await t
      .http()
      .post('/api/bio/add')
      .set(user.auth)
      .send({
        name: 'Our links',
        title: 'Example Café',
        description: 'Menu, opening hours and bookings',
        links: [
          { title: 'Menu', url: 'https://example.com/menu' },
          { title: 'Book a table', url: 'https://example.com/book' },
        ],
      })
      .expect(200);
  });

  afterAll(() => {
    if (!WRITE) rmSync(out, { recursive: true, force: true });
  });

  it('renders each main page and shoots it', async () => {
    const { page, problems } = await suite.open({ viewport: VIEWPORT });
    await signIn(page, user);
    const shots = [
      ...PAGES.slice(0, 1),
      { file: 'statistics.png', path: statsPath, heading: 'Link statistics' },
      ...PAGES.slice(1),
    ];
    for (const shot of shots) {
      await page.goto(`${MAIN}/app${shot.path}`);
      await page.getByRole('heading', { name: shot.heading, level: 1 }).waitFor();
      // what the page loads has arrived: no request for half a second, nothing busy
      await page.waitForLoadState('networkidle');
      for (let i = 0; (await page.locator('[aria-busy="true"]').count()) > 0; i++) {
        if (i > 50) throw new Error(`${shot.path} stays busy`);
        await page.waitForTimeout(100);
      }
      // a chart is drawn once its library has loaded
      if (shot.path.startsWith('/stats'))
        await page
          .getByRole('img', { name: /Clicks/ })
          .locator('canvas')
          .first()
          .waitFor();
      const file = join(out, shot.file);
      await page.screenshot({ path: file, fullPage: true });
      expect([shot.file, readFileSync(file).subarray(0, 8).equals(PNG_MAGIC)]).toEqual([
        shot.file,
        true,
      ]);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
