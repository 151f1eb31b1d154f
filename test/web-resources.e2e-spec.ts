import { Locator, Page } from 'playwright-core';

import { DnsResolver } from '../apps/api/src/domains/dns.resolver';
import { createPlan, createUser, TestUser } from './support/app';
import {
  axeViolations,
  fieldError,
  MAIN,
  NARROW,
  openSignedIn,
  scrollWidth,
  webSuite,
} from './support/web';

/**
 * The dashboard's pages of what links use (campaigns, channels, pixels, CTA overlays, splash
 * pages: /app/links/…) and branded domains (/app/domains), all on the generic resource page
 * (apps/web/src/pages/links/Resource.tsx): for each, create → list → edit → delete by role and
 * label, checked through the API with the user's key, an API error shown by its field, an axe scan
 * and 375 px with the form open; a link assigned to a campaign and to a channel; a domain's DNS
 * records and "Verify" (DNS answers stubbed on the api's DnsResolver, as test/domains and
 * test/trust do).
 */

const SERVICE_IP = '203.0.113.7';
const SERVICE_HOST = 'edge.short.test';

describe('the dashboard: campaigns, channels, pixels, overlays, splash pages, domains', () => {
  const suite = webSuite({
    DOMAIN_VERIFY: 'dns',
    SERVICE_IPS: SERVICE_IP,
    SERVICE_HOST,
  });
  let plan: number;
  const on = { enabled: '1', count: '0' };

  beforeAll(async () => {
    plan = await createPlan(suite.t, {
      bundle: { enabled: '1' },
      domain: on,
      pixels: on,
      overlay: on,
      splash: on,
    });
  });
  afterEach(() => jest.restoreAllMocks());

  const user = () => createUser(suite.t, { planId: plan });
  const get = async (u: TestUser, path: string) =>
    (await suite.t.http().get(path).set(u.auth).expect(200)).body;
  const post = async (u: TestUser, path: string, body: object = {}) =>
    (await suite.t.http().post(path).set(u.auth).send(body).expect(200)).body;
  const uniq = (p: string) => `${p}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

  /** The 4xx answers a test provokes on purpose are not problems. */
  const unexpected = (problems: string[], ...expected: RegExp[]) =>
    problems.filter((p) => !expected.some((e) => e.test(p)));

  interface Journey {
    path: string;
    heading: string;
    noun: string;
    /** the list route and its collection key, to check through the API */
    list: string;
    key: string;
    /** fills a form that the API refuses: the field's label and the message expected there */
    bad: { fill: (form: Locator) => Promise<void>; label: string; message: RegExp };
    create: (form: Locator) => Promise<void>;
    name: string;
    created: object;
    edit: (form: Locator) => Promise<void>;
    newName: string;
    edited: object;
    /** after creating, before editing: the page's own widgets */
    more?: (page: Page, u: TestUser, entry: Locator) => Promise<void>;
  }

  /** New → a refusal by its field → Create → listed → Edit → Delete, checked through the API. */
  async function journey(j: Journey): Promise<void> {
    const u = await user();
    const { page, problems } = await suite.open();
    await openSignedIn(page, u, j.path, j.heading);
    await page.getByText(/yet: /).waitFor();

    await page.getByRole('button', { name: `New ${j.noun}` }).click();
    const form = page.getByRole('form', { name: `New ${j.noun}` });
    await j.bad.fill(form);
    await form.getByRole('button', { name: 'Create' }).click();
    expect(await fieldError(form, j.bad.label)).toMatch(j.bad.message);
    expect((await get(u, `${j.list}`)).data[j.key]).toEqual([]);

    await j.create(form);
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: j.name, level: 2 }).waitFor();
    await expect(form.count()).resolves.toBe(0);
    // the focus is back on "New …"
    await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe(
      `New ${j.noun}`,
    );
    const [created] = (await get(u, j.list)).data[j.key];
    expect(created).toMatchObject(j.created);

    const entry = page.getByRole('listitem', { name: j.name });
    if (j.more) await j.more(page, u, entry);

    await entry.getByRole('button', { name: `Edit ${j.name}` }).click();
    const editForm = page.getByRole('form', { name: `Edit ${j.name}` });
    // the focus moves into the form (keyboard users type at once)
    await editForm.locator(':focus').waitFor();
    await j.edit(editForm);
    await editForm.getByRole('button', { name: 'Save' }).click();
    // saved once the form closes (a domain keeps its name: its heading is there before)
    await editForm.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: j.newName, level: 2 }).waitFor();
    const [edited] = (await get(u, j.list)).data[j.key];
    expect(edited).toMatchObject({ id: created.id, ...j.edited });

    await page.getByRole('button', { name: `Delete ${j.newName}` }).click();
    await page.getByRole('button', { name: `Confirm deleting ${j.newName}` }).click();
    await page.getByRole('status').filter({ hasText: 'deleted' }).waitFor();
    await page.getByRole('heading', { name: j.newName }).waitFor({ state: 'detached' });
    expect((await get(u, j.list)).data[j.key]).toEqual([]);
    expect(unexpected(problems, /^400 /, /^409 /)).toEqual([]);
  }

  it('campaigns: create, a refused slug by its field, assign a link found by search, edit, delete', async () => {
    const name = uniq('Spring ');
    const slug = uniq('spring-');
    await journey({
      path: '/links/campaigns',
      heading: 'Campaigns',
      noun: 'campaign',
      list: '/api/campaigns',
      key: 'campaigns',
      bad: {
        fill: async (form) => {
          await form.getByLabel('Name').fill(name);
          await form.getByLabel('Rotator slug').fill('No Spaces');
        },
        label: 'Rotator slug',
        message: /^slug: must be 3 to 50 of a-z/,
      },
      create: async (form) => {
        await form.getByLabel('Rotator slug').fill(slug);
        await form.getByLabel('Public list page').check();
      },
      name,
      created: { name, public: true, rotator: `${MAIN}/r/${slug}` },
      more: async (page, u, entry) => {
        const target = `https://example.com/${uniq('campaign-link-')}`;
        const link = await post(u, '/api/url/add', { url: target });
        await post(u, '/api/url/add', { url: 'https://example.com/other' });
        await entry.getByRole('button', { name: `Assign a link to ${name}` }).click();
        await entry.getByLabel('Find a link').fill(target.slice(-12));
        await entry.getByRole('button', { name: 'Search' }).click();
        const select = entry.getByLabel('Link', { exact: true });
        await select.waitFor();
        await expect(select.locator('option').count()).resolves.toBe(1);
        await entry.getByRole('button', { name: 'Assign', exact: true }).click();
        await entry
          .getByRole('status')
          .filter({ hasText: /assigned/ })
          .waitFor();
        const listed = (await get(u, `/api/urls?q=${encodeURIComponent(target)}`)).data.urls;
        expect(listed.map((l: { id: number; campaign: number }) => [l.id, l.campaign])).toEqual([
          [link.id, (await get(u, '/api/campaigns')).data.campaigns[0].id],
        ]);
      },
      edit: async (form) => {
        await expect(form.getByLabel('Rotator slug').inputValue()).resolves.toBe(slug);
        await form.getByLabel('Name').fill(`${name} 2`);
        await form.getByLabel('Rotator slug').fill('');
        await form.getByLabel('Public list page').uncheck();
      },
      newName: `${name} 2`,
      edited: { name: `${name} 2`, public: false, rotator: false },
    });
  });

  it('channels: create, a refused name by its field, assign a link and see it listed, edit, delete', async () => {
    const name = uniq('News ');
    await journey({
      path: '/links/channels',
      heading: 'Channels',
      noun: 'channel',
      list: '/api/channels',
      key: 'channels',
      bad: {
        fill: async (form) => {
          await form.getByLabel('Description').fill('Shared weekly');
        },
        label: 'Name',
        message: /^name: /,
      },
      create: async (form) => {
        await form.getByLabel('Name').fill(name);
        await form.getByLabel('Badge colour').fill('#1e90ff');
        await form.getByLabel('Starred').check();
      },
      name,
      created: { name, description: 'Shared weekly', color: '#1e90ff', starred: true },
      more: async (page, u, entry) => {
        const target = `https://example.com/${uniq('channel-link-')}`;
        const link = await post(u, '/api/url/add', { url: target });
        await entry.getByRole('button', { name: `Assign an item to ${name}` }).click();
        await expect(entry.getByLabel('Item type').inputValue()).resolves.toBe('links');
        await entry.getByLabel('Find a link').fill(target.slice(-12));
        await entry.getByRole('button', { name: 'Search' }).click();
        await entry.getByRole('button', { name: 'Assign', exact: true }).click();
        await entry
          .getByRole('status')
          .filter({ hasText: /assigned/ })
          .waitFor();
        const [channel] = (await get(u, '/api/channels')).data.channels;
        const items = (await get(u, `/api/channel/${channel.id}`)).data.items;
        expect(items).toEqual([expect.objectContaining({ type: 'links', id: link.id })]);
        // the channel's items, shown at once
        await entry
          .getByRole('region', { name: `Items of ${name}` })
          .getByRole('link', { name: items[0].title })
          .waitFor();
      },
      edit: async (form) => {
        await form.getByLabel('Name').fill(`${name} 2`);
        await form.getByLabel('Description').fill('');
        await form.getByLabel('Starred').uncheck();
      },
      newName: `${name} 2`,
      edited: { name: `${name} 2`, description: '', starred: false },
    });
  });

  it('pixels: create with a type, a refused tag by its field, edit name and tag, delete', async () => {
    const name = uniq('Shop pixel ');
    await journey({
      path: '/links/pixels',
      heading: 'Pixels',
      noun: 'pixel',
      list: '/api/pixels',
      key: 'pixels',
      bad: {
        fill: async (form) => {
          await form.getByLabel('Type').selectOption('vendor09');
          await form.getByLabel('Name').fill(name);
          await form.getByLabel('Tag').fill('<script>');
        },
        label: 'Tag',
        message: /^tag: must be 1 to 255 of/,
      },
      create: async (form) => {
        await form.getByLabel('Tag').fill('AW-123456');
      },
      name,
      created: { name, type: 'vendor09', tag: 'AW-123456' },
      edit: async (form) => {
        await expect(form.getByLabel('Type').count()).resolves.toBe(0);
        await form.getByLabel('Name').fill(`${name} 2`);
        await form.getByLabel('Tag').fill('AW-654321');
      },
      newName: `${name} 2`,
      edited: { name: `${name} 2`, type: 'vendor09', tag: 'AW-654321' },
    });
  });

  it('overlays: every field, a refused button link by its field, edit (loaded from GET /api/overlay/:id), delete', async () => {
    const name = uniq('Newsletter ');
    await journey({
      path: '/links/overlays',
      heading: 'Overlays',
      noun: 'overlay',
      list: '/api/overlay',
      key: 'cta',
      bad: {
        fill: async (form) => {
          await form.getByLabel('Name').fill(name);
          await form.getByLabel('Type').selectOption('contact');
          await form.getByLabel('Message').fill('Write to us');
          await form.getByLabel('Button text').fill('Contact');
          await form.getByLabel('Button link').fill('not a url');
        },
        label: 'Button link',
        message: /^link: /,
      },
      create: async (form) => {
        await form.getByLabel('Button link').fill('https://example.com/contact');
        await form.getByLabel('Position').selectOption('tr');
        await form.getByLabel('Background colour').fill('#112233');
        await form.getByLabel('Text colour').fill('#fefefe');
        await form.getByLabel('Button colour').fill('#ff0000');
      },
      name,
      created: { name, type: 'contact' },
      more: async (_page, u) => {
        const [o] = (await get(u, '/api/overlay')).data.cta;
        expect((await get(u, `/api/overlay/${o.id}`)).data).toMatchObject({
          message: 'Write to us',
          button: 'Contact',
          link: 'https://example.com/contact',
          position: 'tr',
          bgcolor: '#112233',
          textcolor: '#fefefe',
          buttoncolor: '#ff0000',
        });
      },
      edit: async (form) => {
        // the form holds what GET /api/overlay/:id answered
        await expect(form.getByLabel('Message').inputValue()).resolves.toBe('Write to us');
        await expect(form.getByLabel('Position').inputValue()).resolves.toBe('tr');
        await form.getByLabel('Name').fill(`${name} 2`);
        await form.getByLabel('Type').selectOption('message');
        await form.getByLabel('Position').selectOption('bl');
      },
      newName: `${name} 2`,
      edited: { name: `${name} 2`, type: 'message' },
    });
  });

  it('splash pages: every field, a refused countdown by its field, edit, delete', async () => {
    const name = uniq('Holiday ');
    await journey({
      path: '/links/splash',
      heading: 'Splash pages',
      noun: 'splash page',
      list: '/api/splash',
      key: 'splash',
      bad: {
        fill: async (form) => {
          await form.getByLabel('Name').fill(name);
          await form.getByLabel('Title').fill('Closed for the holidays');
          await form.getByLabel('Message').fill('Back in January.');
          await form.getByLabel('Image URL').fill('https://cdn.example/holiday.jpg');
          await form.getByLabel('Link', { exact: true }).fill('https://shop.example/');
          await form.getByLabel('Button text').fill('Go on');
          await form.getByLabel('Countdown (seconds)').fill('601');
        },
        label: 'Countdown (seconds)',
        message: /^countdown: must be an integer from 0 to 600$/,
      },
      create: async (form) => {
        await form.getByLabel('Countdown (seconds)').fill('9');
      },
      name,
      created: { name },
      more: async (_page, u) => {
        const [s] = (await get(u, '/api/splash')).data.splash;
        expect((await get(u, `/api/splash/${s.id}`)).data).toMatchObject({
          title: 'Closed for the holidays',
          message: 'Back in January.',
          image: 'https://cdn.example/holiday.jpg',
          link: 'https://shop.example/',
          countdown: 9,
          button: 'Go on',
        });
      },
      edit: async (form) => {
        await expect(form.getByLabel('Countdown (seconds)').inputValue()).resolves.toBe('9');
        await form.getByLabel('Name').fill(`${name} 2`);
        await form.getByLabel('Countdown (seconds)').fill('0');
      },
      newName: `${name} 2`,
      edited: { name: `${name} 2` },
    });
  });

  it('domains: a refusal naming where DNS must point, the TXT record shown, Verify refused then verified, edit, delete', async () => {
    const dns = suite.t.app.get(DnsResolver);
    const lookup = jest
      .spyOn(dns, 'lookup')
      .mockResolvedValue({ a: ['198.51.100.1'], aaaa: [], cname: [] });
    const txt = jest.spyOn(dns, 'txt').mockResolvedValue([]);
    const host = `${uniq('go')}.brand.example`;
    await journey({
      path: '/domains',
      heading: 'Domains',
      noun: 'domain',
      list: '/api/domains',
      key: 'domains',
      bad: {
        fill: async (form) => {
          await form.getByLabel('Domain').fill(`https://${host}`);
          await form.getByLabel('Root redirect').fill('https://www.example.com/');
        },
        label: 'Domain',
        message: new RegExp(
          `does not point to this service \\(expected an A/AAAA record in ${SERVICE_IP} or a CNAME to ${SERVICE_HOST}\\)`,
        ),
      },
      create: async () => {
        lookup.mockResolvedValue({ a: [SERVICE_IP], aaaa: [], cname: [] });
      },
      name: host,
      created: {
        domain: `https://${host}`,
        redirectroot: 'https://www.example.com/',
        verified: false,
      },
      more: async (page, u, entry) => {
        await page
          .getByRole('status')
          .filter({ hasText: 'Domain added: create the DNS records' })
          .waitFor();
        const [d] = (await get(u, '/api/domains')).data.domains;
        const token = d.verification.value as string;
        expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
        // the records to create, as the API names them
        const record = async (label: string) =>
          (await entry.getByLabel(label, { exact: true }).locator('dd').allTextContents()).join(
            ' | ',
          );
        expect(await record(`A record ${SERVICE_IP}`)).toBe(`A | ${host} | ${SERVICE_IP}`);
        expect(await record('CNAME record')).toBe(`CNAME | ${host} | ${SERVICE_HOST}`);
        expect(await record('TXT record')).toBe(`TXT | _linkverify.${host} | ${token}`);
        await entry.getByText('Not verified').waitFor();

        // not there yet: the API's reason, shown as an alert
        await entry.getByRole('button', { name: `Verify ${host}` }).click();
        await expect(entry.getByRole('alert').textContent()).resolves.toMatch(
          new RegExp(`ownership not proven yet: create a TXT record _linkverify\\.${host}`),
        );
        expect(txt).toHaveBeenLastCalledWith(`_linkverify.${host}`);
        expect((await get(u, '/api/domains')).data.domains[0].verified).toBe(false);

        txt.mockResolvedValue([token]);
        await entry.getByRole('button', { name: `Verify ${host}` }).click();
        await entry.getByText('Ownership is verified: the domain serves your links.').waitFor();
        await entry.getByText('Verified', { exact: true }).waitFor();
        await expect(entry.getByLabel('TXT record').count()).resolves.toBe(0);
        expect((await get(u, '/api/domains')).data.domains[0]).toMatchObject({
          verified: true,
          verification: null,
        });
      },
      edit: async (form) => {
        await expect(form.getByLabel('Domain').count()).resolves.toBe(0);
        await form.getByLabel('Root redirect').fill('');
        await form.getByLabel('Not-found redirect').fill('https://www.example.com/404');
      },
      newName: host,
      edited: { redirectroot: '', redirect404: 'https://www.example.com/404', verified: true },
    });
  });

  it('shows an error that names no field (the plan refuses) above the form buttons, focused', async () => {
    const noPixels = await createPlan(suite.t, { pixels: { enabled: '0', count: '0' } });
    const u = await createUser(suite.t, { planId: noPixels });
    const { page, problems } = await suite.open();
    await openSignedIn(page, u, '/links/pixels', 'Pixels');
    await page.getByRole('button', { name: 'New pixel' }).click();
    const form = page.getByRole('form', { name: 'New pixel' });
    await form.getByLabel('Name').fill('Shop');
    await form.getByLabel('Tag').fill('AW-1');
    await form.getByRole('button', { name: 'Create' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    const answer = await suite.t
      .http()
      .post('/api/pixel/add')
      .set(u.auth)
      .send({ type: 'vendor01pixel', name: 'Shop', tag: 'AW-1' })
      .expect(403);
    await expect(alert.textContent()).resolves.toBe(answer.body.message);
    await expect(form.locator('[aria-invalid="true"]').count()).resolves.toBe(0);
    await form.locator(':focus').waitFor();
    expect(unexpected(problems, /^403 /)).toEqual([]);
  });

  it('lists a page at a time (page, limit): "Next" shows the rest', async () => {
    const u = await user();
    for (let i = 1; i <= 11; i++)
      await post(u, '/api/pixel/add', { type: 'vendor01pixel', name: `Pixel ${i}`, tag: `T-${i}` });
    const { page, problems } = await suite.open();
    await openSignedIn(page, u, '/links/pixels', 'Pixels');
    await page.getByText('Page 1 of 2').waitFor();
    await expect(page.getByRole('heading', { level: 2 }).count()).resolves.toBe(10);
    await page.getByRole('heading', { name: 'Pixel 11', level: 2 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Pages' })
      .getByRole('button', { name: 'Next' })
      .click();
    await page.getByText('Page 2 of 2').waitFor();
    await page.getByRole('heading', { name: 'Pixel 1', level: 2 }).waitFor();
    await expect(page.getByRole('heading', { level: 2 }).count()).resolves.toBe(1);
    expect(problems).toEqual([]);
  });

  /** Each page at 375 px and through axe (light and dark) with its "New" form open, one entry listed. */
  it('each page: no horizontal scroll at 375 px and no serious axe violation, its form open', async () => {
    const u = await user();
    const id = async (path: string, body: object) => (await post(u, path, body)).id as number;
    const long = `https://example.com/${'a-very-long-path-segment/'.repeat(6)}`;
    await id('/api/campaign/add', { name: 'A campaign with a long name', slug: uniq('slug-') });
    await id('/api/channel/add', { name: 'Channel', description: long, color: '#1e90ff' });
    await id('/api/pixel/add', { type: 'vendor01pixel', name: 'Pixel', tag: 'AW-1' });
    await id('/api/overlay/add', { type: 'message', name: 'Overlay', link: long });
    await id('/api/splash/add', { name: 'Splash', link: long });
    jest
      .spyOn(suite.t.app.get(DnsResolver), 'lookup')
      .mockResolvedValue({ a: [SERVICE_IP], aaaa: [], cname: [] });
    await id('/api/domain/add', {
      domain: `https://${uniq('a-rather-long-subdomain-name-')}.brand.example`,
      redirectroot: long,
    });

    const pages: Array<[string, string, string]> = [
      ['/links/campaigns', 'Campaigns', 'campaign'],
      ['/links/channels', 'Channels', 'channel'],
      ['/links/pixels', 'Pixels', 'pixel'],
      ['/links/overlays', 'Overlays', 'overlay'],
      ['/links/splash', 'Splash pages', 'splash page'],
      ['/domains', 'Domains', 'domain'],
    ];
    const { page, problems } = await suite.open({ viewport: NARROW, bypassCSP: true });
    await openSignedIn(page, u, '/links/campaigns', 'Campaigns');
    for (const [path, heading, noun] of pages) {
      await page.goto(`${MAIN}/app${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await page.getByRole('button', { name: `New ${noun}` }).click();
      await page.getByRole('form', { name: `New ${noun}` }).waitFor();
      // the page's own widgets open too
      const assign = page.getByRole('button', { name: /^Assign (a link|an item) to/ });
      if (await assign.count()) await assign.first().click();
      expect([path, await scrollWidth(page)]).toEqual([path, NARROW.width]);
      expect([path, await axeViolations(page)]).toEqual([path, []]);
    }
    expect(problems).toEqual([]);
  });
});
