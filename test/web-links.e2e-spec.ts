import { Page } from 'playwright-core';

import { createUser, TestUser } from './support/app';
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
 * The links pages of the dashboard (docs/dashboard.md): the list at /app/links (search, sort,
 * pages, "New link" with every option of `POST /api/url/add`, "Shorten several" through
 * `POST /api/url/bulk`) and one link at /app/links/<id> (details, edit, delete), against the real
 * api in headless Chromium, each result checked through the API with the user's key.
 */
describe('the dashboard: links pages', () => {
  const suite = webSuite();
  const http = () => suite.t.http();

  /** The user's links as the API lists them, newest first. */
  async function listed(user: TestUser): Promise<Array<{ id: number; longurl: string }>> {
    const res = await http().get('/api/urls').query({ limit: 100 }).set(user.auth).expect(200);
    return res.body.data.urls;
  }

  async function details(user: TestUser, id: number) {
    const res = await http().get(`/api/url/${id}`).set(user.auth).expect(200);
    return res.body.details;
  }

  async function addLink(user: TestUser, body: Record<string, unknown>): Promise<number> {
    const res = await http().post('/api/url/add').set(user.auth).send(body).expect(200);
    return res.body.id;
  }

  /** Opens "New link" with its options shown. */
  async function openForm(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'New link' }).click();
    await page.getByRole('textbox', { name: 'Destination URL' }).waitFor();
    await page.getByText('More options').click();
    await page.getByLabel('Custom alias').waitFor();
  }

  /** Problems but the 4xx answers a test provokes on purpose. */
  const unexpected = (problems: string[], status: RegExp) =>
    problems.filter((p) => !status.test(p));

  it('creates a geo-targeted link with several options through the form, listed, options stored', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const campaign = (
      await http().post('/api/campaign/add').set(user.auth).send({ name: 'Spring' }).expect(200)
    ).body.id;
    const channel = (
      await http().post('/api/channel/add').set(user.auth).send({ name: 'Newsletter' }).expect(200)
    ).body.id;
    const pixel = (
      await http()
        .post('/api/pixel/add')
        .set(user.auth)
        .send({ type: 'vendor09', name: 'Shop tag', tag: 'G-ABC123' })
        .expect(200)
    ).body.id;

    const brand = `https://brand${Date.now().toString(36)}.example`;
    await http().post('/api/domain/add').set(user.auth).send({ domain: brand }).expect(200);
    const { page, problems } = await suite.open();
    await signIn(page, user);
    await openForm(page);
    const target = `https://example.com/geo-${Date.now()}`;
    const alias = `geo${Date.now().toString(36)}`;
    await page.getByRole('textbox', { name: 'Destination URL' }).fill(target);
    await page.getByLabel('Custom alias').fill(alias);
    await page.getByLabel('Domain', { exact: true }).selectOption(brand);
    await page.getByLabel('Title', { exact: true }).fill('Spring sale');
    await page.getByLabel('Visibility').selectOption('private');
    await page.getByLabel('Preview title').fill('Big spring sale');
    await page.getByLabel('Click limit').fill('500');
    await page.getByLabel('Password', { exact: true }).fill('open sesame');
    await page.getByLabel('Expires at').fill('2030-01-02T03:04');
    // the reader's local time, sent in UTC
    const expiry = ((await page.evaluate("new Date('2030-01-02T03:04').toISOString()")) as string)
      .slice(0, 19)
      .replace('T', ' ');

    await page.getByRole('button', { name: 'Add country rule' }).click();
    await page.getByLabel('Country of rule 1').selectOption('DE');
    await page.getByLabel('Link of country rule 1').fill('https://example.de/');
    await page.getByRole('button', { name: 'Add country rule' }).click();
    await page.getByLabel('Country of rule 2').selectOption('FR');
    await page.getByLabel('Link of country rule 2').fill('https://example.fr/');
    await page.getByRole('button', { name: 'Add device rule' }).click();
    await page.getByLabel('Device of rule 1').selectOption('iphone');
    await page.getByLabel('Link of device rule 1').fill('https://apps.example/ios');
    await page.getByRole('button', { name: 'Add language rule' }).click();
    await page.getByLabel('Language of rule 1').selectOption('es');
    await page.getByLabel('Link of language rule 1').fill('https://example.es/');
    await page.getByLabel('iPhone and iPad app link').fill('myapp://product/42');
    await page.getByRole('button', { name: 'Add parameter' }).click();
    await page.getByLabel('Name of parameter 1').fill('utm_source');
    await page.getByLabel('Value of parameter 1').fill('newsletter');
    await page.getByLabel('Shop tag (vendor09)').check();
    await page.getByLabel('Campaign').selectOption({ label: 'Spring' });
    await page.getByLabel('Channel').selectOption({ label: 'Newsletter' });
    await page.getByRole('button', { name: 'Create', exact: true }).click();

    await page.getByText(target).waitFor();
    await page.getByText('1 link', { exact: true }).waitFor();
    await page.getByRole('status').getByText(`${brand}/${alias}`).waitFor();
    // the form closed, the focus is back on "New link"
    expect(await page.getByRole('textbox', { name: 'Destination URL' }).count()).toBe(0);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('New link');

    const [link] = await listed(user);
    expect(link.longurl).toBe(target);
    expect(await details(user, link.id)).toMatchObject({
      alias,
      domain: brand,
      shorturl: `${brand}/${alias}`,
      title: 'Spring sale',
      status: 'private',
      metatitle: 'Big spring sale',
      clicklimit: 500,
      geotarget: [
        { location: 'DE', link: 'https://example.de/' },
        { location: 'FR', link: 'https://example.fr/' },
      ],
      devicetarget: [{ device: 'iphone', link: 'https://apps.example/ios' }],
      languagetarget: [{ language: 'es', link: 'https://example.es/' }],
      deeplink: { apple: 'myapp://product/42' },
      parameters: [{ name: 'utm_source', value: 'newsletter' }],
      pixels: [pixel],
      campaign,
      channels: [channel],
      type: 'direct',
      password: true,
      expiry,
    });

    // the row leads to the link's page and to its statistics
    const row = page.getByRole('listitem').filter({ hasText: target });
    expect(
      await row.getByRole('link', { name: `Statistics of ${alias}` }).getAttribute('href'),
    ).toBe(`/app/stats/${link.id}`);
    await row.getByRole('link', { name: `Details of ${alias}` }).click();
    await page.getByRole('heading', { name: `Link ${alias}`, level: 1 }).waitFor();
    expect(page.url()).toBe(`${MAIN}/app/links/${link.id}`);
    expect(problems).toEqual([]);
  });

  it('shows the API’s error next to the field it names: a bad alias, a bad targeting link', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const { page, problems } = await suite.open();
    await signIn(page, user);
    await openForm(page);
    await page.getByRole('textbox', { name: 'Destination URL' }).fill('https://example.com/x');
    await page.getByLabel('Custom alias').fill('a!');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await fieldError(page, 'Custom alias')).toMatch(/^custom: /);
    // the focus goes to the field the error names
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-invalid')")).toBe(
      'true',
    );

    await page.getByLabel('Custom alias').fill('');
    await page.getByRole('button', { name: 'Add country rule' }).click();
    await page.getByRole('button', { name: 'Add country rule' }).click();
    await page.getByLabel('Link of country rule 1').fill('https://example.de/');
    await page.getByLabel('Link of country rule 2').fill('not a url');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await fieldError(page, 'Link of country rule 2')).toMatch(/^geotarget\[1\]\.link: /);
    expect(await page.getByLabel('Link of country rule 1').getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByLabel('Custom alias').getAttribute('aria-invalid')).toBeNull();
    // nothing was created
    expect(await listed(user)).toEqual([]);
    expect(unexpected(problems, /^400 /)).toEqual([]);
    expect(problems.length).toBe(2);
  });

  it('edits a link with the same form (only what changed is sent), then deletes it', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const id = await addLink(user, {
      url: 'https://example.com/edit-me',
      title: 'Before',
      geotarget: [{ location: 'DE', link: 'https://example.de/' }],
      password: 'secret',
    });
    const alias = (await details(user, id)).alias;
    const overlay = (
      await http()
        .post('/api/overlay/add')
        .set(user.auth)
        .send({ type: 'message', name: 'Promo', message: 'Hello', link: 'https://example.com/' })
        .expect(200)
    ).body.id;
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, `/links/${id}`, `Link ${alias}`);
    await page.getByText('https://example.com/edit-me').waitFor();
    // the destination's health (GET /api/url/:id/health): not probed yet
    await page.getByRole('heading', { name: 'Destination health' }).waitFor();
    await page.getByText('Not checked yet').waitFor();

    await page.getByRole('button', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit link' });
    expect(await form.getByRole('textbox', { name: 'Destination URL' }).inputValue()).toBe(
      'https://example.com/edit-me',
    );
    await form.getByText('More options').click();
    expect(await form.getByLabel('Link of country rule 1').inputValue()).toBe(
      'https://example.de/',
    );
    expect(await form.getByLabel('Country of rule 1').inputValue()).toBe('DE');
    await form.getByLabel('Title', { exact: true }).fill('After');
    await form.getByRole('button', { name: 'Remove country rule 1' }).click();
    await form.getByLabel('Click limit').fill('25');
    await form
      .getByLabel('If the destination breaks, send visitors to')
      .fill('https://example.com/fallback');
    await form.getByLabel('Redirect type').selectOption({ label: 'Overlay: Promo' });
    const sent = page.waitForRequest((r) => r.method() === 'PUT');
    await form.getByRole('button', { name: 'Save changes' }).click();
    expect((await sent).postDataJSON()).toEqual({
      title: 'After',
      geotarget: null,
      clicklimit: 25,
      fallbackurl: 'https://example.com/fallback',
      type: overlay,
    });
    await page.getByText('Changes saved.').waitFor();
    await page.getByText('Framed with an overlay: Promo').waitFor();
    expect(await page.getByRole('form', { name: 'Edit link' }).count()).toBe(0);
    expect(await details(user, id)).toMatchObject({
      title: 'After',
      geotarget: null,
      clicklimit: 25,
      fallbackurl: 'https://example.com/fallback',
      type: 'overlay',
      overlay,
      password: true,
      longurl: 'https://example.com/edit-me',
    });

    // an error of the update by its field
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Destination URL' }).fill('ftp://nope');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(await fieldError(page, 'Destination URL')).toMatch(/^url: /);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: `Confirm deleting ${alias}` }).click();
    await page.waitForURL(`${MAIN}/app/links`);
    await page.getByText('No links yet').waitFor();
    await http().get(`/api/url/${id}`).set(user.auth).expect(404);
    expect(unexpected(problems, /^400 /)).toEqual([]);
  });

  it('shortens several pasted lines at once, each line’s result or error in its place', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const { page, problems } = await suite.open();
    await signIn(page, user);
    await page.getByRole('button', { name: 'Shorten several' }).click();
    const stamp = Date.now();
    await page
      .getByLabel('URLs to shorten, one a line')
      .fill(
        [
          `https://example.com/bulk-a-${stamp}`,
          `https://example.com/bulk-b-${stamp}`,
          '',
          'not a url',
          `https://example.com/bulk-c-${stamp}`,
        ].join('\n'),
      );
    await page.getByRole('button', { name: 'Shorten all' }).click();
    await page.getByRole('heading', { name: '3 created, 1 refused' }).waitFor();
    const refused = page.getByRole('listitem').filter({ hasText: 'Line 4:' });
    expect(await refused.textContent()).toMatch(/Line 4: not a url refused: url: /);
    const ok = page.getByRole('listitem').filter({ hasText: 'Line 5:' });
    expect(await ok.getByRole('link').textContent()).toMatch(new RegExp(`^${MAIN}/`));
    await page.getByText('3 links', { exact: true }).waitFor();
    expect((await listed(user)).map((l) => l.longurl)).toEqual([
      `https://example.com/bulk-c-${stamp}`,
      `https://example.com/bulk-b-${stamp}`,
      `https://example.com/bulk-a-${stamp}`,
    ]);
    expect(problems).toEqual([]);
  });

  it('sorts newest first or most clicked, pages through more than 20 links, searches', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const urls = Array.from({ length: 23 }, (_, i) => ({ url: `https://example.com/p${i + 1}` }));
    const bulk = await http().post('/api/url/bulk').set(user.auth).send({ urls }).expect(200);
    const ids: number[] = bulk.body.data.map((d: { id: number }) => d.id);
    expect(ids.every(Boolean)).toBe(true);
    // p5 most clicked, then p12
    await suite.t.db.query(
      `INSERT INTO link_stats_total (link_id, clicks, uniques) VALUES ($1, 40, 1), ($2, 7, 1)`,
      [ids[4], ids[11]],
    );

    const { page, problems } = await suite.open();
    await signIn(page, user);
    await page.getByText('23 links', { exact: true }).waitFor();
    const rows = page.locator('ul.links > li');
    const targets = () => rows.locator('.target').allTextContents();
    expect(await rows.count()).toBe(20);
    expect((await targets())[0]).toBe('https://example.com/p23');
    await page.getByText('Page 1 of 2').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    expect(await targets()).toEqual([
      'https://example.com/p3',
      'https://example.com/p2',
      'https://example.com/p1',
    ]);

    await page.getByLabel('Sort by').selectOption('click');
    await page.getByText('Page 1 of 2').waitFor();
    await page.locator('.meta', { hasText: '40 clicks' }).waitFor();
    expect((await targets()).slice(0, 3)).toEqual([
      'https://example.com/p5',
      'https://example.com/p12',
      'https://example.com/p23',
    ]);

    await page.getByRole('searchbox', { name: 'Search links' }).fill('/p1');
    await page.getByRole('button', { name: 'Search' }).click();
    // p1, p10–p19: eleven
    await page.getByText('11 links', { exact: true }).waitFor();
    expect((await targets())[0]).toBe('https://example.com/p12');
    expect(problems).toEqual([]);
  });

  it('never shows one user’s links to another', async () => {
    const owner = await createUser(suite.t);
    const other = await createUser(suite.t);
    const id = await addLink(owner, { url: 'https://example.com/mine-only' });
    const { page, problems } = await suite.open();
    await signIn(page, other);
    await page.getByText('No links yet').waitFor();
    expect(await page.getByText('https://example.com/mine-only').count()).toBe(0);
    await page.goto(`${MAIN}/app/links/${id}`);
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/could not be loaded/);
    expect(await page.getByText('https://example.com/mine-only').count()).toBe(0);
    expect(problems).toEqual([`404 ${MAIN}/api/url/${id}`]);
  });

  it('has no serious or critical axe-core violation: the list, the open form with its options, a link', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const id = await addLink(user, {
      url: 'https://example.com/axe',
      title: 'Axe',
      geotarget: [{ location: 'DE', link: 'https://example.de/' }],
      parameters: [{ name: 'utm_source', value: 'x' }],
    });
    const { page } = await suite.open({ bypassCSP: true });
    await signIn(page, user);
    await page.getByText('1 link', { exact: true }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await openForm(page);
    await page.getByRole('button', { name: 'Add country rule' }).click();
    await page.getByRole('button', { name: 'Add device rule' }).click();
    await page.getByRole('button', { name: 'Add language rule' }).click();
    await page.getByRole('button', { name: 'Add parameter' }).click();
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Shorten several' }).click();
    await page.getByLabel('URLs to shorten, one a line').fill('https://example.com/1\nbad');
    await page.getByRole('button', { name: 'Shorten all' }).click();
    await page.getByRole('heading', { name: '1 created, 1 refused' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${MAIN}/app/links/${id}`);
    await page.getByRole('heading', { name: /^Link / }).waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByText('More options').click();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('fits 375 px: the list, the open form with its options, a link with long URLs', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const long = `https://example.com/${'very-long-path-segment-'.repeat(8)}end`;
    const id = await addLink(user, {
      url: long,
      geotarget: [{ location: 'DE', link: long }],
      expirationredirect: long,
    });
    const { page, problems } = await suite.open({ viewport: NARROW });
    await signIn(page, user);
    await page.getByText(long).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);

    await openForm(page);
    await page.getByRole('button', { name: 'Add country rule' }).click();
    await page.getByRole('button', { name: 'Add parameter' }).click();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
    await page.getByRole('button', { name: 'Cancel' }).click();
    // keyboard: closing the form gives the focus back to "New link"
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('New link');

    await page.goto(`${MAIN}/app/links/${id}`);
    await page.getByRole('heading', { name: /^Link / }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByText('More options').click();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
    expect(problems).toEqual([]);
  });
});
