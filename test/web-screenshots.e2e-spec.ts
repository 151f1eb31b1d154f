import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createUser, TestUser } from './support/app';
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
  { file: 'statistics.png', path: '/stats', heading: /Statistics/ },
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
    for (const [url, title, custom] of targets) {
      const tag = `${custom}${user.id}`;
      const res = await t
        .http()
        .post('/api/url/add')
        .set(user.auth)
        .send({ url, title, custom: tag });
      expect(res.status).toBe(200);
      for (let i = 0; i < 3; i++) await t.http().get(`/${tag}`).set('Host', 'short.test');
    }
  });

  afterAll(() => {
    if (!WRITE) rmSync(out, { recursive: true, force: true });
  });

  it('renders each main page and shoots it', async () => {
    const { page, problems } = await suite.open({ viewport: VIEWPORT });
    await signIn(page, user);
    for (const shot of PAGES) {
      await page.goto(`${MAIN}/app${shot.path}`);
      await page.getByRole('heading', { name: shot.heading, level: 1 }).waitFor();
      // what the page loads has arrived: nothing is busy
      await page.waitForFunction('document.querySelectorAll("[aria-busy=true]").length === 0');
      const file = join(out, shot.file);
      await page.screenshot({ path: file });
      expect([shot.file, readFileSync(file).subarray(0, 8).equals(PNG_MAGIC)]).toEqual([
        shot.file,
        true,
      ]);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
