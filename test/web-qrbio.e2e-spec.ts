import { readFile } from 'node:fs/promises';

import { INestApplicationContext } from '@nestjs/common';
import { Download, Page } from 'playwright-core';

import { createTestWorker, createUser, TestUser } from './support/app';
import {
  axeViolations,
  fieldError,
  MAIN,
  NARROW,
  openSignedIn,
  scrollWidth,
  webSuite,
} from './support/web';
import { insertDomain } from './support/links';
import { BROWSER_UA, eventually, foldStats } from './support/stats';

/**
 * The QR codes and bio pages of the dashboard (apps/web/src/pages/Qr.tsx, Bio.tsx) in headless
 * Chromium against the real api, with a worker in-process to render the QR images: the forms
 * with their live previews, the API's errors by their fields, the downloads, the public bio page,
 * edit and delete, the axe-core scan and 375 px.
 */
describe('dashboard: QR codes and bio pages', () => {
  const suite = webSuite();
  let worker: INestApplicationContext;

  beforeAll(async () => {
    worker = await createTestWorker();
  }, 30_000);

  afterAll(async () => {
    await worker?.close();
  });

  const api = (user: TestUser, path: string) =>
    suite.t
      .http()
      .get(path)
      .set(user.auth)
      .then((r) => r.body);

  /** The failures a test provokes on purpose (400 of a refused form) are not problems. */
  const unexpected = (problems: string[]) => problems.filter((p) => !/^400 .*\/api\//.test(p));

  const PREVIEW = /^Preview of the QR code/;
  const previewSrc = (page: Page) =>
    page.getByRole('img', { name: PREVIEW }).getAttribute('src') as Promise<string>;
  const svgOf = (src: string) =>
    decodeURIComponent(src.slice('data:image/svg+xml;charset=utf-8,'.length));

  async function download(page: Page, name: string): Promise<Buffer> {
    const [file] = await Promise.all([
      page.waitForEvent('download') as Promise<Download>,
      page.getByRole('link', { name }).click(),
    ]);
    return readFile((await file.path()) as string);
  }

  it('QR code: preview follows the form, errors by their fields, create, download PNG and SVG, edit, delete', async () => {
    const user = await createUser(suite.t);
    const { page, problems } = await suite.open({ acceptDownloads: true });
    await openSignedIn(page, user, '/qr', 'QR codes');
    await page.getByText('No QR codes yet').waitFor();
    await page.getByRole('link', { name: 'New QR code' }).click();
    await page.getByRole('heading', { name: 'New QR code', level: 1 }).waitFor();

    // every type the API offers is in the list
    const types = await page
      .getByLabel('Type', { exact: true })
      .locator('option')
      .allTextContents();
    expect(types).toHaveLength(7);

    // the preview: black on white, then the chosen colour as soon as it is picked
    await page.getByRole('img', { name: PREVIEW }).waitFor();
    const first = await previewSrc(page);
    expect(svgOf(first)).toContain('#000000');
    await page.getByLabel('Foreground colour').fill('#1a5fb4');
    await page.getByRole('img', { name: /#1a5fb4 on #ffffff/ }).waitFor();
    const blue = await previewSrc(page);
    expect(blue).not.toBe(first);
    expect(svgOf(blue)).toContain('stroke="#1a5fb4"');
    // a logo raises error correction to H: a denser picture, with the logo's square
    await page.getByLabel('Logo', { exact: true }).fill('https://cdn.example/logo.png');
    await page.getByRole('img', { name: /with a logo/ }).waitFor();
    expect(await previewSrc(page)).not.toBe(blue);
    await page.getByLabel('Logo', { exact: true }).fill('');

    // the API's errors, each by its field
    await page.getByLabel('Destination URL').fill('example.com/menu');
    await page.getByLabel('Name', { exact: true }).fill('Menu card');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    expect(await fieldError(page, 'Destination URL')).toMatch(/^data: must be an http\(s\) URL/);
    await page.getByLabel('Destination URL').fill('https://food.example/menu');
    await page.getByLabel('Background colour').fill('#1a5fb5');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    expect(await fieldError(page, 'Foreground colour')).toMatch(/too little contrast/);
    expect((await api(user, '/api/qr')).data.result).toBe(0);

    await page.getByLabel('Background colour').fill('#ffffff');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.getByRole('heading', { name: 'Menu card', level: 1 }).waitFor();
    const list = (await api(user, '/api/qr')).data;
    expect(list.qrs).toEqual([expect.objectContaining({ name: 'Menu card' })]);
    const id = list.qrs[0].id as number;
    const saved = (await api(user, `/api/qr/${id}`)).details;
    expect(saved).toMatchObject({
      type: 'link',
      data: 'https://food.example/menu',
      foreground: 'rgb(26,95,180)',
      background: 'rgb(255,255,255)',
      logo: null,
    });

    // the worker renders the image; then both downloads
    await page.getByRole('link', { name: 'Download PNG' }).waitFor({ timeout: 20_000 });
    const png = await download(page, 'Download PNG');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const svg = (await download(page, 'Download SVG')).toString('utf8');
    expect(svg).toMatch(/^<svg /);
    // the preview of the saved code is the picture the worker made, byte for byte
    expect(svgOf(await previewSrc(page))).toBe(svg);

    // scans: the short link counts one
    const scan = await suite.t
      .http()
      .get(new URL(saved.link).pathname)
      .set('User-Agent', BROWSER_UA);
    expect(scan.status).toBe(302);
    await eventually(async () => {
      await foldStats(suite.t);
      return (await api(user, `/api/qr/${id}`)).data.clicks === 1;
    });
    await page.reload();
    await page.getByText('1 scan, 1 unique').waitFor();
    await page
      .getByRole('table', { name: 'Browsers' })
      .getByRole('cell', { name: 'Chrome' })
      .waitFor();

    // edit: the content (same picture) and the name
    const form = page.getByRole('form', { name: 'Edit QR code' });
    await form.getByLabel('Destination URL').fill('https://food.example/winter');
    await form.getByLabel('Name', { exact: true }).fill('Winter menu');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('heading', { name: 'Winter menu', level: 1 }).waitFor();
    expect((await api(user, `/api/qr/${id}`)).details).toMatchObject({
      name: 'Winter menu',
      data: 'https://food.example/winter',
      foreground: 'rgb(26,95,180)',
    });
    // a new look renders the image again: the downloads follow it
    await form.getByLabel('Background colour').fill('#fff8e1');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await eventually(async () => {
      await page.getByRole('link', { name: 'Download SVG' }).waitFor({ timeout: 20_000 });
      return (await download(page, 'Download SVG')).toString('utf8').includes('fill="#fff8e1"');
    }, 20_000);
    expect((await api(user, `/api/qr/${id}`)).details.background).toBe('rgb(255,248,225)');

    // an error on edit, by its field
    await form.getByLabel('Destination URL').fill('ftp://food.example/');
    await form.getByRole('button', { name: 'Save changes' }).click();
    expect(await fieldError(page, 'Destination URL')).toMatch(/^data: /);

    // delete, after a confirmation
    await page.getByRole('button', { name: 'Delete QR code' }).click();
    await page.getByRole('button', { name: 'Confirm deleting Winter menu' }).click();
    await page.getByRole('heading', { name: 'QR codes', level: 1 }).waitFor();
    await page.getByText('No QR codes yet').waitFor();
    expect((await api(user, '/api/qr')).data.result).toBe(0);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  it('QR code: the other types through the form (Wi-Fi, vCard, e-mail), their errors by field', async () => {
    const user = await createUser(suite.t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, '/qr/new', 'New QR code');
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Wi-Fi network' });
    await page.getByLabel('Network name (SSID)').fill('Cafe guests');
    await page.getByLabel('Network password').fill('short');
    await page.getByLabel('Hidden network').check();
    await page.getByRole('button', { name: 'Create QR code' }).click();
    expect(await fieldError(page, 'Network password')).toMatch(/^data\.pass: must be 8 to 64/);
    await page.getByLabel('Network password').fill('long enough');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.getByRole('heading', { name: 'QR code', exact: false, level: 1 }).waitFor();
    await page.getByText('Wi-Fi network · made').waitFor();
    const [wifi] = (await api(user, '/api/qr')).data.qrs;
    expect((await api(user, `/api/qr/${wifi.id}`)).details.data).toEqual({
      ssid: 'Cafe guests',
      pass: 'long enough',
      encryption: 'WPA',
      hidden: true,
    });

    await page.goto(`${MAIN}/app/qr/new`);
    await page.getByLabel('Type', { exact: true }).selectOption('vcard');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    expect(await fieldError(page, 'First name')).toMatch(/^data: must have at least one/);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Ada card');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.getByRole('heading', { name: 'Ada card', level: 1 }).waitFor();
    const ada = (await api(user, '/api/qr')).data.qrs.find(
      (q: { name: string }) => q.name === 'Ada card',
    );
    expect((await api(user, `/api/qr/${ada.id}`)).details).toMatchObject({
      type: 'vcard',
      data: { fname: 'Ada', email: 'ada@example.com' },
    });
    // the edit form shows the saved content
    await expect(
      page.getByRole('form', { name: 'Edit QR code' }).getByLabel('First name').inputValue(),
    ).resolves.toBe('Ada');

    await page.goto(`${MAIN}/app/qr/new`);
    await page.getByLabel('Type', { exact: true }).selectOption('email');
    await page.getByLabel('E-mail address').fill('not-an-address');
    await page.getByLabel('Subject').fill('Hello');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    expect(await fieldError(page, 'E-mail address')).toMatch(/^data\.email: /);
    await page.getByLabel('E-mail address').fill('desk@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Desk mail');
    await page.getByRole('button', { name: 'Create QR code' }).click();
    await page.getByRole('heading', { name: 'Desk mail', level: 1 }).waitFor();
    const mail = (await api(user, '/api/qr')).data.qrs.find(
      (q: { name: string }) => q.name === 'Desk mail',
    );
    expect((await api(user, `/api/qr/${mail.id}`)).details).toMatchObject({
      type: 'email',
      data: { email: 'desk@example.com', subject: 'Hello' },
    });
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  it('bio page: build with buttons and a live preview, errors by field, open the public page, edit, delete', async () => {
    const user = await createUser(suite.t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, '/bio', 'Bio pages');
    await page.getByText('No bio pages yet').waitFor();
    await page.getByRole('link', { name: 'New bio page' }).click();
    await page.getByRole('heading', { name: 'New bio page', level: 1 }).waitFor();
    const preview = page.getByTestId('bio-preview');

    await page.getByLabel('Name', { exact: true }).fill('Jane');
    await expect(preview.getByRole('heading').textContent()).resolves.toBe('Jane');
    await page.getByLabel('Title', { exact: true }).fill('Jane Doe');
    await page.getByLabel('Description', { exact: true }).fill('Designer in Berlin');
    await page.getByLabel('Button 1 title').fill('Shop');
    await page.getByLabel('Button 1 URL').fill('https://shop.example/');
    await page.getByRole('button', { name: 'Add button' }).click();
    // the new row has the focus
    await page.getByLabel('Button 2 title').and(page.locator(':focus')).waitFor();
    await page.keyboard.type('Blog');
    await page.getByLabel('Button 2 URL').fill('javascript:alert(1)');
    await page.getByText('Social links (0)').click();
    await page.getByLabel('GitHub').fill('https://github.com/jane');
    await page.getByLabel('Theme', { exact: true }).selectOption('dark');

    await expect(preview.getByRole('heading').textContent()).resolves.toBe('Jane Doe');
    await preview.getByText('Designer in Berlin').waitFor();
    expect(
      await preview.getByRole('list', { name: 'Buttons' }).getByRole('listitem').allTextContents(),
    ).toEqual(['Shop', 'Blog']);
    await preview.getByRole('list', { name: 'Social links' }).getByText('GitHub').waitFor();
    expect(await preview.getAttribute('class')).toContain('bio-dark');

    const alias = `jane${Date.now().toString(36)}`;
    await page.getByLabel('Alias', { exact: true }).fill(alias);
    await page.getByRole('button', { name: 'Create bio page' }).click();
    expect(await fieldError(page, 'Button 2 URL')).toMatch(
      /^links\[1\]\.url: must be an absolute http/,
    );
    await page.getByLabel('Button 2 URL').fill('https://blog.example/');
    await page.getByRole('button', { name: 'Create bio page' }).click();
    await page.getByRole('heading', { name: 'Jane', level: 1 }).waitFor();

    const [bio] = (await api(user, '/api/bio')).data.bios;
    expect(bio).toMatchObject({
      name: 'Jane',
      alias,
      url: `${MAIN}/${alias}`,
      title: 'Jane Doe',
      description: 'Designer in Berlin',
      theme: 'dark',
      links: [
        { title: 'Shop', url: 'https://shop.example/' },
        { title: 'Blog', url: 'https://blog.example/' },
      ],
      socials: { github: 'https://github.com/jane' },
    });

    // "Open": the public page in a new tab, with its title and buttons
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('link', { name: 'Open Jane (new tab)' }).click(),
    ]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${MAIN}/${alias}`);
    await tab.getByRole('heading', { name: 'Jane Doe', level: 1 }).waitFor();
    expect(await tab.getByRole('link').allTextContents()).toEqual(['Shop', 'Blog', 'GitHub']);
    await tab.close();

    // edit: a title, the first button removed, the rest moved; an error by its field first
    const form = page.getByRole('form', { name: 'Edit bio page' });
    await form.getByLabel('Title', { exact: true }).fill('Jane D.');
    await expect(page.getByTestId('bio-preview').getByRole('heading').textContent()).resolves.toBe(
      'Jane D.',
    );
    await form.getByLabel('Avatar image URL').fill('cat.png');
    await form.getByRole('button', { name: 'Save changes' }).click();
    expect(await fieldError(page, 'Avatar image URL')).toMatch(/^avatar: /);
    await form.getByLabel('Avatar image URL').fill('');
    await form.getByRole('button', { name: 'Remove button 1' }).click();
    await form.getByRole('button', { name: 'Add button' }).click();
    await form.getByLabel('Button 2 title').fill('Talks');
    await form.getByLabel('Button 2 URL').fill('https://talks.example/');
    await form.getByRole('button', { name: 'Move button 2 up' }).click();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await api(user, `/api/bio/${bio.id}`)).details).toMatchObject({
      title: 'Jane D.',
      links: [
        { title: 'Talks', url: 'https://talks.example/' },
        { title: 'Blog', url: 'https://blog.example/' },
      ],
    });
    await page.goto(`${MAIN}/${alias}`);
    await page.getByRole('heading', { name: 'Jane D.', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Jane', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Delete bio page' }).click();
    await page.getByRole('button', { name: 'Confirm deleting Jane' }).click();
    await page.getByRole('heading', { name: 'Bio pages', level: 1 }).waitFor();
    await page.getByText('No bio pages yet').waitFor();
    expect((await api(user, '/api/bio')).data.result).toBe(0);
    expect((await suite.t.http().get(`/${alias}`)).status).toBe(404);
    expect(unexpected(problems)).toEqual([]);
  }, 60_000);

  it('bio page on a branded domain, then back on the service address', async () => {
    const user = await createUser(suite.t);
    const domain = await insertDomain(suite.t, user.id);
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, '/bio/new', 'New bio page');
    await page.getByLabel('Name', { exact: true }).fill('Branded');
    await page.getByLabel('Alias', { exact: true }).fill(`br${Date.now().toString(36)}`);
    await page.getByLabel('Domain').selectOption({ label: domain.url });
    await page.getByText(`The page lives at ${domain.url}/br`).waitFor();
    await page.getByRole('button', { name: 'Create bio page' }).click();
    await page.getByRole('heading', { name: 'Branded', level: 1 }).waitFor();
    const [bio] = (await api(user, '/api/bio')).data.bios;
    expect(bio).toMatchObject({ domain: domain.url, url: `${domain.url}/${bio.alias}` });
    const form = page.getByRole('form', { name: 'Edit bio page' });
    await expect(form.getByLabel('Domain').inputValue()).resolves.toBe(String(domain.id));
    await form.getByLabel('Domain').selectOption({ label: "The service's own address" });
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await api(user, `/api/bio/${bio.id}`)).details).toMatchObject({
      domain: null,
      url: `${MAIN}/${bio.alias}`,
    });
    expect(problems).toEqual([]);
  });

  it('both pages, form open: no serious or critical axe-core violation, light or dark; 375 px without horizontal scroll', async () => {
    const user = await createUser(suite.t);
    await suite.t
      .http()
      .post('/api/qr/add')
      .set(user.auth)
      .send({ type: 'text', data: 'Hello', name: 'A rather long name for a QR code to wrap' });
    await suite.t
      .http()
      .post('/api/bio/add')
      .set(user.auth)
      .send({
        name: 'Narrow',
        title: 'A title',
        links: [
          { title: 'One', url: 'https://one.example/a/very/long/path/that/must/wrap/somewhere' },
        ],
        socials: { x: 'https://x.example/narrow' },
      });
    const { page, problems } = await suite.open({ viewport: NARROW, bypassCSP: true });
    await openSignedIn(page, user, '/qr', 'QR codes');
    // moved through by the app's own links: one page load, axe injected once
    const check = async (
      heading: string,
      go: () => Promise<unknown>,
      ready: () => Promise<unknown>,
    ) => {
      await go();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await ready();
      const width = await scrollWidth(page);
      expect({ heading, fits: width <= NARROW.width }).toEqual({ heading, fits: true });
      expect({ heading, violations: await axeViolations(page) }).toEqual({
        heading,
        violations: [],
      });
    };
    const nav = (name: string) => () =>
      page.getByRole('link', { name, exact: true }).first().click();
    await check(
      'QR codes',
      async () => undefined,
      () => page.getByText('1 QR code').waitFor(),
    );
    await check('New QR code', nav('New QR code'), async () => {
      await page.getByLabel('Type', { exact: true }).selectOption('wifi');
      await page.getByRole('img', { name: PREVIEW }).waitFor();
    });
    const long = 'A rather long name for a QR code to wrap';
    await check(
      long,
      async () => {
        await nav('Back to QR codes')();
        await nav(long)();
      },
      () => page.getByRole('link', { name: 'Download SVG' }).waitFor({ timeout: 20_000 }),
    );
    await check('Bio pages', nav('Bio pages'), () => page.getByText('1 bio page').waitFor());
    await check('New bio page', nav('New bio page'), async () => {
      await page.getByText('Social links (0)').click();
      await page.getByLabel('Theme', { exact: true }).selectOption('dark');
    });
    await check(
      'Narrow',
      async () => {
        await nav('Back to bio pages')();
        await nav('Narrow')();
      },
      () => page.getByText('Social links (1)').click(),
    );
    expect(problems).toEqual([]);
  }, 60_000);
});
