import { readFileSync } from 'node:fs';

import { Page } from 'playwright-core';

import { VisitRecorder } from '@app/stats';

import { createUser, TestUser } from './support/app';
import { BROWSER_UA, eventually, foldStats } from './support/stats';
import {
  axeViolations,
  fieldError,
  MAIN,
  NARROW,
  openSignedIn,
  scrollWidth,
  signIn,
  webSuite,
} from './support/web';

/**
 * The statistics pages of the dashboard (apps/web/src/pages/Stats.tsx; docs/dashboard.md):
 * `/app/stats` (the account, GET /api/stats) and `/app/stats/<id>` (one link,
 * GET /api/url/:id/stats), with real visits through the public redirect.
 */

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

/** Addresses the offline GeoIP data places in known countries (X-Forwarded-For from loopback). */
const VISITORS = [
  { ip: '8.8.8.8', ua: BROWSER_UA, lang: 'en-US' }, // United States, Chrome, Windows, desktop
  { ip: '193.99.144.80', ua: IPHONE_UA, lang: 'de-DE' }, // Germany, Mobile Safari, iOS, mobile
  { ip: '193.99.144.80', ua: IPHONE_UA, lang: 'de-DE', referer: 'https://t.co/x' },
];

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('dashboard: statistics pages', () => {
  const suite = webSuite();

  /** A link of `user` through the API: its id and alias. */
  async function createLink(user: TestUser, url = 'https://example.com/stats-target') {
    const added = await suite.t
      .http()
      .post('/api/url/add')
      .set(user.auth)
      .send({ url })
      .expect(200);
    const read = await suite.t.http().get(`/api/url/${added.body.id}`).set(user.auth).expect(200);
    return { id: added.body.id as number, alias: read.body.details.alias as string };
  }

  /** Real visits of the short link (302 through the public side), made visible to reads. */
  async function visit(user: TestUser, link: { id: number; alias: string }) {
    for (const v of VISITORS) {
      const req = suite.t
        .http()
        .get(`/${link.alias}`)
        .set('Host', 'short.test')
        .set('User-Agent', v.ua)
        .set('Accept-Language', v.lang)
        .set('X-Forwarded-For', v.ip)
        .redirects(0);
      if (v.referer) req.set('Referer', v.referer);
      expect((await req).status).toBe(302);
    }
    // the redirect hands the visit to the recorder after answering; its memory is written now
    await eventually(async () => {
      await suite.t.app.get(VisitRecorder).flush();
      const stats = await suite.t.http().get(`/api/url/${link.id}/stats`).set(user.auth);
      return stats.body.data?.clicks === VISITORS.length;
    });
  }

  const chart = (page: Page) => page.getByRole('img', { name: /Clicks/ });

  it('a link: 0 then the visits, its dimensions, the table, the range picker, its errors and the CSV', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const link = await createLink(user);
    const { page, problems } = await suite.open({ acceptDownloads: true });
    await openSignedIn(page, user, `/stats/${link.id}`, 'Link statistics');

    // the short URL and target at the top, a way back to the links
    await page.getByRole('link', { name: /short\.test\// }).waitFor();
    await page.getByRole('link', { name: 'https://example.com/stats-target' }).waitFor();
    await page.getByRole('link', { name: '← All links' }).waitFor();

    await chart(page).waitFor();
    expect(await chart(page).getAttribute('aria-label')).toMatch(
      /^Clicks per day, .+: 0 in total$/,
    );
    const totals = page.getByRole('region', { name: 'Totals' });
    expect(await totals.textContent()).toBe('Clicks0Unique visitors0');
    await page.getByRole('region', { name: 'Countries' }).getByText('No visits').waitFor();
    // uPlot drew into the figure (loaded on demand)
    await page.locator('figure canvas').first().waitFor();

    await visit(user, link);
    await page.reload();
    await page.getByRole('img', { name: /: 3 in total$/ }).waitFor();
    expect(await totals.textContent()).toBe('Clicks3Unique visitors2');
    const bars = async (name: string) =>
      (await page.getByRole('region', { name }).getByRole('listitem').allTextContents()).join(
        ' | ',
      );
    expect(await bars('Countries')).toBe('Germany2 | United States1');
    expect(await bars('Browsers')).toBe('Mobile Safari2 | Chrome1');
    expect(await bars('Operating systems')).toBe('iOS2 | Windows1');
    expect(await bars('Devices')).toBe('Mobile2 | Desktop1');
    expect(await bars('Languages')).toMatch(/^German \(de\)2 \| English \(en\)1$/);
    expect(await bars('Referrers')).toBe('Direct2 | t.co1');
    expect(await bars('Social networks')).toBe('X (Twitter)1');

    // the numbers as a table too
    await page.getByText('Show as table').click();
    const table = page.getByRole('table', { name: /Clicks per day/ });
    const lastRow = table.getByRole('row').last();
    expect(await lastRow.getByRole('cell').allTextContents()).toEqual(['3', '2']);
    expect(await table.getByRole('row').count()).toBe(31); // header + 30 days

    // the range picker asks the API for the range and shows what it answered
    const asked = (match: (q: URLSearchParams) => boolean) =>
      page.waitForRequest((r) => {
        const url = new URL(r.url());
        return url.pathname === `/api/url/${link.id}/stats` && match(url.searchParams);
      });
    let request = asked((q) => q.get('from') === daysAgo(6) && q.get('to') === today());
    await page.getByRole('combobox', { name: 'Range' }).selectOption({ label: 'Last 7 days' });
    await request;
    // header + 7 days, once the answer is shown
    await eventually(async () => (await table.getByRole('row').count()) === 8, 5000);
    await page.getByRole('img', { name: /: 3 in total$/ }).waitFor();

    request = asked((q) => q.get('interval') === 'week');
    await page.getByRole('combobox', { name: 'Per' }).selectOption('week');
    await request;
    await page.getByRole('img', { name: /^Clicks per week, / }).waitFor();
    expect(page.url()).toContain('range=7&interval=week');

    // custom dates: a range before today has no visits; the API's refusal shows by its field
    await page.getByRole('combobox', { name: 'Range' }).selectOption({ label: 'Custom dates' });
    await page.getByLabel('From', { exact: true }).fill('2026-01-01');
    await page.getByLabel('To', { exact: true }).fill('2026-01-31');
    request = asked((q) => q.get('from') === '2026-01-01' && q.get('to') === '2026-01-31');
    await page.getByRole('button', { name: 'Apply' }).click();
    await request;
    await page.getByRole('img', { name: /: 0 in total$/ }).waitFor();
    await page.getByText(/^1 Jan – 31 Jan 2026|^Jan 1 – Jan 31, 2026/).waitFor();

    await page.getByLabel('From', { exact: true }).fill('2026-02-10');
    await page.getByLabel('To', { exact: true }).fill('2026-02-01');
    await page.getByRole('button', { name: 'Apply' }).click();
    expect(await fieldError(page, 'From')).toMatch(/^from: must not be after to/);

    // the range is in the address: a reload keeps it
    await page.getByLabel('From', { exact: true }).fill('2026-01-01');
    await page.getByLabel('To', { exact: true }).fill(today());
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('img', { name: /^Clicks per week, .+: 3 in total$/ }).waitFor();
    await page.reload();
    await page.getByRole('img', { name: /^Clicks per week, .+: 3 in total$/ }).waitFor();
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2026-01-01');

    // the CSV of the range (exports read what the worker folded)
    await foldStats(suite.t);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toBe('date,dimension,value,clicks');
    expect(csv).toContain(`${today()},country,Germany,2`);
    expect(csv).toContain(`${today()},browser,Chrome,1`);

    // the refused range (400) is the only failed request
    expect(problems.filter((p) => !/^400 .*\/stats\?from=2026-02-10/.test(p))).toEqual([]);
  });

  it('journey: create a link, visit it in the browser (a real 302 of the public redirect), see its chart change', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const { page, problems } = await suite.open({ userAgent: BROWSER_UA });
    await signIn(page, user);
    const target = `https://example.com/visited-${Date.now()}`;
    await page.getByRole('button', { name: 'New link' }).click();
    await page.getByRole('textbox', { name: 'Destination URL' }).fill(target);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const row = page.getByRole('listitem').filter({ hasText: target });
    await row.waitFor();
    const [created] = (await suite.t.http().get('/api/urls').set(user.auth).expect(200)).body.data
      .urls;
    const { alias, shorturl } = (
      await suite.t.http().get(`/api/url/${created.id}`).set(user.auth).expect(200)
    ).body.details;
    expect(shorturl).toBe(`${MAIN}/${alias}`);

    // its statistics from the list: nothing yet
    await row.getByRole('link', { name: `Statistics of ${alias}` }).click();
    await page.getByRole('heading', { name: 'Link statistics', level: 1 }).waitFor();
    await page.getByRole('img', { name: /^Clicks per day, .+: 0 in total$/ }).waitFor();
    const canvas = page.locator('figure canvas').first();
    await canvas.waitFor();
    const before = await canvas.screenshot();

    // a visitor opens the short link in the browser: the public redirect's 302 to the target
    // (whose host this machine cannot reach: the navigation then stops, the visit is counted)
    const visitor = await page.context().newPage();
    const hop = visitor.waitForResponse((r) => r.url() === shorturl);
    await visitor.goto(shorturl).catch(() => undefined);
    expect((await hop).status()).toBe(302);
    expect((await hop).headers().location).toBe(target);
    await visitor.close();
    await eventually(async () => {
      await suite.t.app.get(VisitRecorder).flush();
      const stats = await suite.t.http().get(`/api/url/${created.id}/stats`).set(user.auth);
      return stats.body.data?.clicks === 1;
    });

    // the chart changes: its name, the totals, the drawing
    await page.reload();
    await page.getByRole('img', { name: /^Clicks per day, .+: 1 in total$/ }).waitFor();
    expect(await page.getByRole('region', { name: 'Totals' }).textContent()).toBe(
      'Clicks1Unique visitors1',
    );
    await canvas.waitFor();
    expect((await canvas.screenshot()).equals(before)).toBe(false);
    await page.getByText('Show as table').click();
    const lastDay = page
      .getByRole('table', { name: /Clicks per day/ })
      .getByRole('row')
      .last();
    expect(await lastDay.getByRole('cell').allTextContents()).toEqual(['1', '1']);
    expect(problems).toEqual([]);
  });

  it('the account: totals over every link, the top links (each opening its page); a plan without exports says so', async () => {
    const user = await createUser(suite.t, { plan: 'Free' });
    const first = await createLink(user, 'https://example.com/first');
    await createLink(user, 'https://example.com/second');
    await visit(user, first);
    const { page, problems } = await suite.open({ viewport: NARROW });
    await openSignedIn(page, user, '/stats', 'Statistics');

    await page.getByRole('img', { name: /^Clicks per day, .+: 3 in total$/ }).waitFor();
    const totals = page.getByRole('region', { name: 'Totals' });
    expect(await totals.textContent()).toBe('Clicks3Unique visitors2');
    const account = (await suite.t.http().get('/api/stats').set(user.auth)).body.data;
    expect(account.clicks).toBe(3);

    const top = page.getByRole('region', { name: 'Top links' });
    expect(await top.getByRole('listitem').count()).toBe(1);
    await page.getByRole('region', { name: 'Countries' }).getByText('Germany').waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);

    const request = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/stats');
    await page.getByRole('combobox', { name: 'Range' }).selectOption({ label: 'Last 90 days' });
    expect(new URL((await request).url()).searchParams.get('from')).toBe(daysAgo(89));

    // the free plan has no exports: the API's message, not a saved error file
    await page.getByRole('button', { name: 'Download links as CSV' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/export/i);

    await top.getByRole('link').click();
    await page.getByRole('heading', { name: 'Link statistics', level: 1 }).waitFor();
    expect(page.url()).toContain(`/app/stats/${first.id}?range=90`);
    await page.getByRole('img', { name: /: 3 in total$/ }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);

    expect(problems.filter((p) => !/^403 .*\/api\/urls\/export$/.test(p))).toEqual([]);
  });

  it('"Watch visits live": the link’s visits appear as they come (GET /api/url/:id/live), until Stop', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const link = await createLink(user);
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, `/stats/${link.id}`, 'Link statistics');
    const panel = page.getByRole('region', { name: 'Live' });
    await panel.getByRole('button', { name: 'Watch visits live' }).click();
    await panel.getByText('Watching', { exact: true }).waitFor();
    const v = VISITORS[0];
    const res = await suite.t
      .http()
      .get(`/${link.alias}`)
      .set('Host', 'short.test')
      .set('User-Agent', v.ua)
      .set('X-Forwarded-For', v.ip)
      .redirects(0);
    expect(res.status).toBe(302);
    const table = panel.getByRole('table', { name: /Latest visits of this link/ });
    await table.getByText('United States').waitFor();
    expect(await table.getByRole('row').count()).toBe(2);
    await panel.getByRole('button', { name: 'Stop' }).click();
    await panel.getByText('Off', { exact: true }).waitFor();
    expect(problems).toEqual([]);
  });

  it("another user's link is refused with a clear message, and an unknown address too", async () => {
    const owner = await createUser(suite.t);
    const other = await createUser(suite.t);
    const link = await createLink(owner);
    const { page, problems } = await suite.open();
    await openSignedIn(page, other, `/stats/${link.id}`, 'Link statistics');
    expect(await page.getByRole('alert').textContent()).toMatch(
      /does not exist, or it belongs to another account/,
    );
    await page.getByRole('link', { name: 'Back to your links' }).waitFor();
    expect(await chart(page).count()).toBe(0);

    await page.goto(`${MAIN}/app/stats/not-a-link`);
    await page
      .getByRole('alert')
      .getByText('There is no statistics page at this address')
      .waitFor();
    expect(problems.filter((p) => !new RegExp(`^404 .*/api/url/${link.id}`).test(p))).toEqual([]);
  });

  it('has no serious or critical axe-core violation, light or dark, and fits 375 px, on both pages', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const link = await createLink(user);
    await visit(user, link);
    const { page, problems } = await suite.open({ bypassCSP: true, viewport: NARROW });
    for (const [path, heading] of [
      [`/stats/${link.id}`, 'Link statistics'],
      ['/stats', 'Statistics'],
    ]) {
      if (path === '/stats') await page.goto(`${MAIN}/app${path}`);
      else await openSignedIn(page, user, path, heading);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.getByRole('img', { name: /: 3 in total$/ }).waitFor();
      await page.locator('figure canvas').first().waitFor();
      await page.getByText('Show as table').click();
      await page.getByRole('combobox', { name: 'Range' }).selectOption({ label: 'Custom dates' });
      await page.getByLabel('From', { exact: true }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
      // the chart follows its box's width
      const canvas = await page.locator('figure canvas').first().boundingBox();
      expect(canvas!.width).toBeLessThanOrEqual(NARROW.width);
    }
    expect(problems).toEqual([]);
  });
});
