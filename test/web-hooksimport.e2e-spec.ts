import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { INestApplicationContext } from '@nestjs/common';
import { Page } from 'playwright-core';

import { createPlan, createTestWorker, createUser, TestUser } from './support/app';
import { Receiver, signatureValid } from './support/webhooks';
import {
  axeViolations,
  fieldError,
  MAIN,
  NARROW,
  openSignedIn,
  scrollWidth,
  webSuite,
} from './support/web';

/** Receivers on loopback are allowed (docs/webhooks-import.md: WEBHOOK_ALLOW_HOSTS). */
const ALLOW = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' };

/** Polls `check` until it is true (the worker delivers and imports in the background). */
async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const csvFile = (name: string, text: string) => ({
  name,
  mimeType: 'text/csv',
  buffer: Buffer.from(text, 'utf8'),
});

describe('dashboard: webhooks and import', () => {
  const suite = webSuite(ALLOW);
  // the worker sends the deliveries and runs the imports
  let worker: INestApplicationContext;
  let receiver: Receiver;

  beforeAll(async () => {
    worker = await createTestWorker(ALLOW);
    receiver = await Receiver.start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await worker?.close();
  });

  const webhooksOf = async (user: TestUser) =>
    (await suite.t.http().get('/api/webhooks').set(user.auth)).body.data.webhooks as Array<{
      id: number;
      url: string;
      events: string[];
      status: string;
    }>;

  /** Adds a webhook through the form; answers its id and the secret shown once. */
  async function addWebhook(page: Page, user: TestUser, url: string) {
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill(url);
    await page.getByRole('checkbox', { name: /link\.deleted/ }).check();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const secretBox = page.getByRole('textbox', { name: 'Signing secret', exact: true });
    await secretBox.waitFor();
    const secret = await secretBox.inputValue();
    const [hook] = await webhooksOf(user);
    return { id: hook.id, secret };
  }

  it('webhooks: a bad URL by its field, add (secret once), send a test and see its delivery, edit, delete', async () => {
    const user = await createUser(suite.t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, '/webhooks', 'Webhooks');
    await page.getByText('No webhooks yet.').waitFor();

    // the API refuses a URL that is not one: its message next to the field
    await page.getByRole('button', { name: 'Add webhook' }).click();
    // every event the API accepts is offered
    for (const event of [
      'link.created',
      'link.updated',
      'link.deleted',
      'link.flagged',
      'link.clicked',
      'link.broken',
      'link.recovered',
      'link.drifted',
      'qr.created',
      'qr.scanned',
      'member.added',
      'member.removed',
    ])
      await page
        .getByRole('checkbox', { name: new RegExp(`^${event.replace('.', '\\.')} `) })
        .waitFor();
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill('not a url');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    expect(await fieldError(page, 'Endpoint URL')).toMatch(/^url: /);
    expect(await webhooksOf(user)).toEqual([]);
    // no event at all: the API's message by the Events group
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill(receiver.url('/dash'));
    await page.getByRole('checkbox', { name: /^link\.created / }).uncheck();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const events = page.getByRole('group', { name: 'Events' });
    await until(
      'the events error',
      async () => (await events.getAttribute('aria-invalid')) === 'true',
    );
    expect(await events.getByRole('alert').textContent()).toMatch(/^events: /);
    await page.getByRole('button', { name: 'Cancel' }).click();

    const { id, secret } = await addWebhook(page, user, receiver.url('/dash'));
    expect(secret).toMatch(/^whsec_/);
    expect(await webhooksOf(user)).toEqual([
      expect.objectContaining({
        id,
        url: receiver.url('/dash'),
        events: ['link.created', 'link.deleted'],
        status: 'active',
      }),
    ]);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('textbox', { name: 'Signing secret', exact: true }).count()).toBe(
      0,
    );
    await page.locator('.webhook-url', { hasText: receiver.url('/dash') }).waitFor();

    // its deliveries, and a test delivery
    await page.getByRole('link', { name: /^Deliveries/ }).click();
    await page.waitForURL(`${MAIN}/app/webhooks/${id}`);
    await page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor();
    await page.getByText('No deliveries yet', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /queued/i })
      .waitFor();
    const row = page.getByRole('row').filter({ hasText: 'webhook.test' });
    await row.filter({ hasText: 'delivered' }).waitFor({ timeout: 15_000 });
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['webhook.test', 'delivered', '200', '1']);
    const got = receiver.on('/dash');
    expect(got.map((r) => r.body.event)).toEqual(['webhook.test']);
    expect(signatureValid(got[0], secret)).toBe(true);
    // a second test within 10 s: the API's refusal is shown
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('alert').waitFor();

    // edit: other events, then disabled
    await page.getByRole('link', { name: 'All webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('button', { name: /^Edit/ }).click();
    // a secret the API refuses: its message by the field, which has the focus
    await page.getByRole('textbox', { name: 'New signing secret (optional)' }).fill('short');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await fieldError(page, 'New signing secret (optional)')).toMatch(/^secret: /);
    expect(await page.evaluate('document.activeElement.getAttribute("aria-invalid")')).toBe('true');
    await page.getByRole('textbox', { name: 'New signing secret (optional)' }).fill('');
    await page.getByRole('checkbox', { name: /^link\.created / }).uncheck();
    await page.getByRole('checkbox', { name: /^qr\.created / }).check();
    await page.getByRole('checkbox', { name: /^Active/ }).uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Disabled', { exact: true }).waitFor();
    expect(await webhooksOf(user)).toEqual([
      expect.objectContaining({ id, events: ['link.deleted', 'qr.created'], status: 'disabled' }),
    ]);
    // focus back on the button that opened the form
    expect(await page.evaluate('document.activeElement.textContent')).toMatch(/^Edit/);

    // delete, after confirming
    await page.getByRole('button', { name: /^Delete/ }).click();
    await page.getByRole('button', { name: `Confirm deleting ${receiver.url('/dash')}` }).click();
    await page.getByText('No webhooks yet.').waitFor();
    expect(await webhooksOf(user)).toEqual([]);
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Add webhook');

    // the bad URL and the empty events (400), the second test within 10 s (429): provoked
    expect(problems.filter((p) => !/^(400|429) /.test(p))).toEqual([]);
    expect(problems.filter((p) => /^400 /.test(p))).toHaveLength(3);
  }, 60_000);

  /** Imports a CSV through the form and waits until the progress bar is at 100 %. */
  async function importCsv(page: Page, name: string, text: string) {
    await page.getByLabel('CSV file').setInputFiles(csvFile(name, text));
    await page.getByRole('button', { name: 'Import' }).click();
    const bar = page.getByRole('progressbar', { name: 'Import progress' });
    await bar.waitFor();
    expect(await bar.getAttribute('aria-valuemin')).toBe('0');
    expect(await bar.getAttribute('aria-valuemax')).toBe('100');
    await until(
      'the import to finish',
      async () => (await bar.getAttribute('aria-valuenow')) === '100',
    );
    return bar;
  }

  it('import: a CSV through the file input, its progress to 100 %, the links made; a bad row by its line', async () => {
    const user = await createUser(suite.t, { plan: 'Pro' });
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, '/import', 'Import');
    // every source the API reads is offered
    const options = await page.getByRole('combobox', { name: 'Source' }).locator('option').all();
    expect(await Promise.all(options.map((o) => o.getAttribute('value')))).toEqual([
      'csv',
      'bitly',
      'shlink',
      'yourls',
      'kutt',
    ]);

    // no file: said by the field
    await page.getByRole('button', { name: 'Import' }).click();
    expect(await fieldError(page, 'CSV file')).toBe('Choose a file to import.');

    const p = `w${Date.now().toString(36)}`;
    await importCsv(
      page,
      'links.csv',
      `url,alias,title\nhttps://example.com/${p}/1,${p}a,One\nhttps://example.com/${p}/2,${p}b,"Two, quoted"\nhttps://example.com/${p}/3,${p}c,Three\n`,
    );
    await page
      .getByRole('status')
      .filter({ hasText: 'Done: 3 created, 0 skipped, 0 failed' })
      .waitFor();
    expect(await page.locator('[data-count="created"]').textContent()).toBe('3');
    expect(page.url()).toMatch(new RegExp(`^${MAIN}/app/import/\\d+$`));
    const listed = await suite.t.http().get('/api/urls').query({ limit: 10 }).set(user.auth);
    expect(
      (listed.body.data.urls as Array<{ alias: string; longurl: string }>)
        .map((l) => [l.alias, l.longurl])
        .sort(),
    ).toEqual([
      [`${p}a`, `https://example.com/${p}/1`],
      [`${p}b`, `https://example.com/${p}/2`],
      [`${p}c`, `https://example.com/${p}/3`],
    ]);

    // a bad row: refused with its line and reason, the others created
    await importCsv(
      page,
      'bad.csv',
      `url,alias\nhttps://example.com/${p}/4,${p}d\nnot a url,${p}e\n`,
    );
    await page
      .getByRole('status')
      .filter({ hasText: 'Done: 1 created, 0 skipped, 1 failed' })
      .waitFor();
    const refused = page.getByRole('region', { name: 'Refused rows' }).getByRole('row');
    const cells = await refused.nth(1).getByRole('cell').allTextContents();
    expect(cells[0]).toBe('3');
    expect(cells[1]).toMatch(/^url: /);
    const again = await suite.t.http().get('/api/urls').query({ limit: 10 }).set(user.auth);
    expect(again.body.data.urls.map((l: { alias: string }) => l.alias)).toContain(`${p}d`);
    expect(again.body.data.urls.map((l: { alias: string }) => l.alias)).not.toContain(`${p}e`);

    // importing the first file again creates nothing new (skipped)
    await importCsv(page, 'links.csv', `url,alias\nhttps://example.com/${p}/1,${p}a\n`);
    await page
      .getByRole('status')
      .filter({ hasText: 'Done: 0 created, 1 skipped, 0 failed' })
      .waitFor();

    // another source: Kutt's links as a JSON file ({data: [...]} of its API), sent as {links}
    const kutt = readFileSync(join(__dirname, 'fixtures', 'import', 'kutt.json'), 'utf8').replace(
      /IMPALIAS/g,
      p,
    );
    await page.getByRole('combobox', { name: 'Source' }).selectOption('kutt');
    await page.getByLabel('CSV file').setInputFiles({
      name: 'kutt.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ data: JSON.parse(kutt) })),
    });
    await page.getByRole('button', { name: 'Import' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Done: 2 created, 0 skipped, 0 failed (kutt)' })
      .waitFor({ timeout: 15_000 });
    const kutted = await suite.t.http().get('/api/urls').query({ limit: 20 }).set(user.auth);
    expect(kutted.body.data.urls.map((l: { alias: string }) => l.alias)).toEqual(
      expect.arrayContaining([`${p}k1`, `${p}k2`]),
    );
    expect(problems).toEqual([]);
  }, 60_000);

  it('import: the progress bar follows a longer import, never going back, to 100 %', async () => {
    const user = await createUser(suite.t, { planId: await createPlan(suite.t, { links: 0 }) });
    const { page, problems } = await suite.open();
    await openSignedIn(page, user, '/import', 'Import');
    const rows = 1500;
    const p = `v${Date.now().toString(36)}`;
    let csv = 'url\n';
    for (let i = 0; i < rows; i++) csv += `https://example.com/${p}/${i}\n`;
    // every value the bar takes, as the page shows it
    await page.evaluate(`(() => {
      window.seen = [];
      new MutationObserver(() => {
        const bar = document.querySelector('[role="progressbar"]');
        const now = bar && bar.getAttribute('aria-valuenow');
        if (now !== null && window.seen[window.seen.length - 1] !== now) window.seen.push(now);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    // The worker may finish between two reads of the page (500-row batches, read every half
    // second): the first read the page makes is answered as the job stood half way, so that the
    // bar is seen following the job whatever the machine's speed; the rest are the api's own.
    // That answer waits until the job has really passed half way (a loaded machine may not have
    // started it yet): it is never ahead of the job, so a later real answer cannot go back.
    let held = 0;
    await page.route(/\/api\/import\/\d+$/, async (route) => {
      if (route.request().method() !== 'GET' || held++ > 0) return route.continue();
      const path = new URL(route.request().url()).pathname;
      const read = async () => (await suite.t.http().get(path).set(user.auth).expect(200)).body;
      const handled = (d: Record<string, number | null>) =>
        (d.created ?? 0) + (d.skipped ?? 0) + (d.failed ?? 0);
      let body = await read();
      for (let i = 0; i < 300 && handled(body.data) < rows / 2; i++) {
        await new Promise((r) => setTimeout(r, 50));
        body = await read();
      }
      body.data = { ...body.data, status: 'running', created: rows / 2, skipped: 0, failed: 0 };
      return route.fulfill({ json: body });
    });
    await importCsv(page, 'many.csv', csv);
    await page
      .getByRole('status')
      .filter({ hasText: `Done: ${rows} created, 0 skipped, 0 failed` })
      .waitFor();
    const seen = ((await page.evaluate('window.seen')) as string[]).map(Number);
    expect(seen[seen.length - 1]).toBe(100);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    // it went through the half-way state, then to the end
    expect(seen).toContain(50);
    expect(held).toBeGreaterThan(1);
    const count = await suite.t.http().get('/api/urls').query({ limit: 1 }).set(user.auth);
    expect(count.body.data.result).toBe(rows);
    expect(problems).toEqual([]);
  }, 60_000);

  /** A user with a webhook that has a delivery, signed in on the page `path`. */
  async function withDelivery(page: Page): Promise<number> {
    const user = await createUser(suite.t);
    const added = await suite.t
      .http()
      .post('/api/webhook/add')
      .set(user.auth)
      .send({ url: receiver.url('/axe'), events: ['link.created', 'qr.created'] });
    expect(added.status).toBe(200);
    const test = await suite.t.http().post(`/api/webhook/${added.body.id}/test`).set(user.auth);
    expect(test.status).toBe(200);
    await openSignedIn(page, user, '/webhooks', 'Webhooks');
    return added.body.id;
  }

  it('has no serious or critical axe violation on both pages and their states, and fits 375 px', async () => {
    const { page, problems } = await suite.open({ bypassCSP: true });
    /** axe in the light and dark theme, then the same state 375 px wide. */
    const check = async (what: string) => {
      expect([what, await axeViolations(page)]).toEqual([what, []]);
      const wide = page.viewportSize();
      await page.setViewportSize(NARROW);
      expect([what, await scrollWidth(page)]).toEqual([what, NARROW.width]);
      if (wide) await page.setViewportSize(wide);
    };
    const id = await withDelivery(page);
    await page.locator('.webhook-url', { hasText: receiver.url('/axe') }).waitFor();
    await check('webhooks list');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill(receiver.url('/axe-2'));
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('textbox', { name: 'Signing secret', exact: true }).waitFor();
    await check('the secret shown once');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('textbox', { name: 'Endpoint URL' }).fill('not a url');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await fieldError(page, 'Endpoint URL');
    await page.getByRole('button', { name: `Edit ${receiver.url('/axe')}`, exact: true }).click();
    await check('both forms, an error shown');

    await page
      .getByRole('link', { name: `Deliveries of ${receiver.url('/axe')}`, exact: true })
      .click();
    await page.waitForURL(`${MAIN}/app/webhooks/${id}`);
    await page
      .getByRole('row')
      .filter({ hasText: 'webhook.test' })
      .filter({ hasText: 'delivered' })
      .waitFor({ timeout: 15_000 });
    await check('deliveries');

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Import' })
      .click();
    await page.getByRole('heading', { name: 'Import', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Import' }).click();
    await fieldError(page, 'CSV file');
    await check('import form with an error');
    await importCsv(
      page,
      'mixed.csv',
      `url,title\nhttps://example.com/a-very-long-path/${'segment-'.repeat(20)}${Date.now()},A\nnot a url,B\n`,
    );
    await page.getByRole('region', { name: 'Refused rows' }).waitFor();
    await check('import with its result');
    expect(problems.filter((p) => !/^400 /.test(p))).toEqual([]);
  }, 60_000);
});
