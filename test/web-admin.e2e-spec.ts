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
 * The dashboard's admin area (`/app/admin`, apps/web/src/pages/Admin.tsx and pages/admin/*;
 * docs/dashboard.md): admins only; users (list, search, add, details, key rotation, login link,
 * plan change, deletion), plans, the blocklist and disabled links, by role and label against the
 * real api, each result checked through the api too.
 */
describe('dashboard: admin area', () => {
  // no credentials cache: a demoted admin is seen at its next call (the "Admins only" test)
  const suite = webSuite({ AUTH_CACHE_SECONDS: '0' });
  const uniq = (p: string) => `${p}${process.pid}${Date.now().toString(36)}`;
  /** Provoked failures (a refused form) are expected; anything else is a problem. */
  const unexpected = (problems: string[], ...expected: RegExp[]) =>
    problems.filter((p) => !expected.some((e) => e.test(p)));
  const narrow = async (page: Page) =>
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
  const visit = (alias: string) =>
    suite.t.http().get(`/${alias}`).set('Host', 'short.test').redirects(0);
  async function eventually(check: () => Promise<boolean>, ms = 3000): Promise<void> {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function openAdmin(page: Page, admin: TestUser, path = '/admin', heading = 'Users') {
    await openSignedIn(page, admin, path, heading);
  }
  const planId = async (name: string): Promise<number> =>
    (await suite.t.db.query(`SELECT id FROM plans WHERE name = $1`, [name]))[0].id;

  it('shows Admin in the navigation to admins only; others get "Admins only", not a crash', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const member = await createUser(suite.t);

    const a = await suite.open();
    await signIn(a.page, admin);
    const nav = a.page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Admin', exact: true }).click();
    await a.page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(a.page.url()).toBe(`${MAIN}/app/admin`);
    const sub = a.page.getByRole('navigation', { name: 'Admin area' });
    for (const name of ['Users', 'Plans', 'Blocklist', 'Disabled links', 'Reports'])
      await sub.getByRole('link', { name, exact: true }).waitFor();
    expect(unexpected(a.problems)).toEqual([]);

    const m = await suite.open();
    await signIn(m.page, member);
    expect(
      await m.page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Admin', exact: true })
        .count(),
    ).toBe(0);
    // the address typed by hand: the area says "Admins only" (the api refused), nothing else
    await m.page.goto(`${MAIN}/app/admin`);
    await m.page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
    expect(await m.page.getByRole('alert').textContent()).toMatch(/^Admins only\./);
    expect(await m.page.getByRole('table').count()).toBe(0);
    expect(await m.page.getByRole('navigation', { name: 'Admin area' }).count()).toBe(0);
    expect(unexpected(m.problems, /^403 .*\/api\/plans$/)).toEqual([]);

    // an admin who stops being one while signed in: the api's 403 becomes "Admins only"
    const d = await suite.open();
    const demoted = await createUser(suite.t, { admin: true });
    await signIn(d.page, demoted);
    await suite.t.db.query(`UPDATE users SET is_admin = false WHERE id = $1`, [demoted.id]);
    await d.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Admin', exact: true })
      .click();
    await d.page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor();
    expect(await d.page.getByRole('alert').textContent()).toMatch(/^Admins only\./);
    expect(await d.page.getByRole('navigation', { name: 'Admin area' }).count()).toBe(0);
    expect(unexpected(d.problems, /^403 .*\/api\/plans$/)).toEqual([]);
  });

  it('users: add (refused by its field, then created), find, rotate the key, login link, change the plan, delete', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const { page, problems } = await suite.open({ viewport: NARROW });
    await openAdmin(page, admin);
    await narrow(page);

    // add: each refused field shows its own part of the api's message, then a good one
    await page.getByRole('button', { name: 'Add user' }).click();
    const username = uniq('web_');
    const email = `${username}@example.com`;
    await page.getByRole('button', { name: 'Create user' }).click();
    expect(await fieldError(page, 'Username')).toMatch(/^username: must be 3 to 32 [^;]*$/);
    expect(await fieldError(page, 'E-mail')).toMatch(/^email: [^;]*$/);
    expect(await fieldError(page, 'Password')).toMatch(/^password: [^;]*$/);
    await page.getByRole('textbox', { name: 'E-mail', exact: true }).fill(email);
    await page.getByLabel('Password').fill('secret1');
    await page.getByRole('textbox', { name: 'Username' }).fill(username);
    await page.getByLabel('Membership expires (optional)').fill('2001-01-01T00:00:00');
    await page.getByRole('button', { name: 'Create user' }).click();
    expect(await fieldError(page, 'Membership expires (optional)')).toMatch(
      /^expiration: must be in the future/,
    );
    await page.getByLabel('Membership expires (optional)').fill('');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('status').getByText(`User ${username} was created.`).waitFor();
    expect(await page.getByRole('button', { name: 'Create user' }).count()).toBe(0);
    const listed = await suite.t.http().get('/api/users').query({ email }).set(admin.auth);
    expect(listed.body.data.map((u: { username: string }) => u.username)).toEqual([username]);
    const id: number = listed.body.data[0].id;
    const oldKey: string = listed.body.data[0].apikey;
    await narrow(page);

    // find it in the list by its e-mail
    await page.getByRole('searchbox', { name: 'E-mail contains' }).fill(username);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('cell', { name: username, exact: true }).waitFor();
    // the list shows that one user only (the header row and its row)
    await eventually(async () => (await page.getByRole('row').count()) === 2);
    await narrow(page);
    await page.getByRole('link', { name: email }).click();
    await page.getByRole('heading', { name: `User ${username}`, level: 1 }).waitFor();
    expect(page.url()).toBe(`${MAIN}/app/admin/users/${id}`);
    await narrow(page);

    // the current key on request, then a new one shown once: the old one is refused
    await page.getByRole('button', { name: 'Show API key' }).click();
    expect(await page.getByRole('textbox', { name: 'Current API key' }).inputValue()).toBe(oldKey);
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    await page.getByRole('button', { name: /^Confirm rotating the API key of/ }).click();
    const newKey = await page.getByRole('textbox', { name: 'New API key' }).inputValue();
    expect(newKey).not.toBe(oldKey);
    const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
    expect((await suite.t.http().get('/api/account').set(bearer(oldKey))).status).toBe(401);
    expect((await suite.t.http().get('/api/account').set(bearer(newKey))).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('textbox', { name: 'New API key' }).count()).toBe(0);

    // a login link to copy
    await page.getByRole('button', { name: 'Create login link' }).click();
    const link = await page.getByRole('textbox', { name: 'Login link' }).inputValue();
    expect(link).toMatch(/^http:\/\/short\.test\/auth\/login\/\S+$/);
    await narrow(page);

    // the plan: a refusal by its field, then Pro for life
    const pro = await planId('Pro');
    await page.getByRole('combobox', { name: 'Plan' }).selectOption({ value: String(pro) });
    await page.getByLabel('Expires (optional)').fill('2001-01-01T00:00:00');
    await page.getByRole('button', { name: 'Change plan' }).click();
    expect(await fieldError(page, 'Expires (optional)')).toMatch(
      /^expiration: must be in the future/,
    );
    await page.getByLabel('Expires (optional)').fill('');
    await page.getByRole('combobox', { name: 'Billing period' }).selectOption('lifetime');
    await page.getByRole('button', { name: 'Change plan' }).click();
    await page.getByText(`${username} is now on the plan Pro.`).waitFor();
    const changed = await suite.t.http().get(`/api/user/${id}`).set(admin.auth).expect(200);
    expect(changed.body.data).toMatchObject({ planid: pro, status: 'pro', expires: null });

    // delete, after a confirmation
    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('button', { name: `Confirm deleting the user ${email}` }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    await page.getByText(`User ${username} (${email}) was deleted.`).waitFor();
    expect(page.url()).toBe(`${MAIN}/app/admin`);
    expect((await suite.t.http().get(`/api/user/${id}`).set(admin.auth)).status).toBe(404);
    expect(unexpected(problems, /^400 .*\/api\/(user\/add|plan\/)/)).toEqual([]);
  });

  it('works by keyboard: focus in the form, then on the result; back on "Add user" after Cancel', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const { page, problems } = await suite.open();
    await openAdmin(page, admin);
    const focusedId = () => page.evaluate('document.activeElement && document.activeElement.id');
    const focusedText = () =>
      page.evaluate('document.activeElement && document.activeElement.textContent');

    const add = page.getByRole('button', { name: 'Add user' });
    await add.focus();
    await page.keyboard.press('Enter');
    const name = page.getByRole('textbox', { name: 'Username' });
    await name.waitFor();
    expect(await focusedId()).toBe(await name.getAttribute('id'));
    const username = uniq('kb_');
    await page.keyboard.type(username);
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe(
      await page.getByRole('textbox', { name: 'E-mail', exact: true }).getAttribute('id'),
    );
    await page.keyboard.type(`${username}@example.com`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('secret1');
    await page.keyboard.press('Enter');
    await page.getByText(`User ${username} was created.`).waitFor();
    expect(await page.evaluate('document.activeElement.getAttribute("role")')).toBe('status');
    await suite.t.http().get('/api/users').query({ email: username }).set(admin.auth).expect(200);

    await add.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.getByRole('button', { name: 'Create user' }).count()).toBe(0);
    expect(await focusedText()).toBe('Add user');

    // the blocklist: Enter adds; Unblock asks, its Confirm has the focus
    await page
      .getByRole('navigation', { name: 'Admin area' })
      .getByRole('link', { name: 'Blocklist' })
      .click();
    const entry = page.getByRole('textbox', { name: 'Domain or keyword' });
    await entry.focus();
    const host = `${uniq('kb')}.test`;
    await page.keyboard.type(host);
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: host, exact: true }).waitFor();
    // the focus stays in the field, for the next entry
    expect(await focusedId()).toBe(await entry.getAttribute('id'));
    await page.getByRole('button', { name: `Unblock ${host}` }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(
      `Confirm unblocking ${host}`,
    );
    await page.keyboard.press('Enter');
    await page.getByText(`${host} is no longer blocked.`).waitFor();
    expect(await page.evaluate('document.activeElement.getAttribute("role")')).toBe('status');
    expect(unexpected(problems)).toEqual([]);
  });

  it('pages the users list by the pages of the api', async () => {
    const admin = await createUser(suite.t, { admin: true });
    for (let i = 0; i < 21; i++) await createUser(suite.t);
    // every user this worker creates has an e-mail starting u<pid>
    const search = `u${process.pid}`;
    const { page, problems } = await suite.open();
    await openAdmin(page, admin);
    await page.getByRole('searchbox', { name: 'E-mail contains' }).fill(search);
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('tbody tr');
    await page.getByText('Page 1', { exact: true }).waitFor();
    expect(await rows.count()).toBe(20);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2', { exact: true }).waitFor();
    const second = await suite.t
      .http()
      .get('/api/users')
      .query({ email: search, page: 2, limit: 20 })
      .set(admin.auth)
      .expect(200);
    const emails = second.body.data.map((u: { email: string }) => u.email);
    expect(emails.length).toBeGreaterThan(0);
    await page.getByRole('link', { name: emails[0] }).waitFor();
    expect(await rows.count()).toBe(emails.length);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Page 1', { exact: true }).waitFor();
    expect(unexpected(problems)).toEqual([]);
  });

  it('filters the users list: admins only', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const member = await createUser(suite.t);
    const { page, problems } = await suite.open();
    await openAdmin(page, admin);
    await page.getByRole('searchbox', { name: 'E-mail contains' }).fill(member.username);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('cell', { name: member.username, exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Show' }).selectOption('admin');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No user matches this search.').waitFor();
    await page.getByRole('searchbox', { name: 'E-mail contains' }).fill(admin.username);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('cell', { name: admin.username, exact: true }).waitFor();
    expect(unexpected(problems)).toEqual([]);
  });

  it('plans: each plan with its prices, limits and features, read-only', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const { page, problems } = await suite.open({ viewport: NARROW });
    await openAdmin(page, admin, '/admin/plans', 'Plans');
    const plans = (await suite.t.http().get('/api/plans').set(admin.auth).expect(200)).body.data;
    for (const p of plans as Array<{ name: string; limits: { links: number } }>) {
      const card = page.getByRole('region', { name: new RegExp(`^${p.name} (Free|Paid)$`) });
      await card.waitFor();
      await card
        .getByText(p.limits.links === 0 ? 'Unlimited' : String(p.limits.links), { exact: true })
        .first()
        .waitFor();
    }
    expect(
      await page
        .getByRole('button')
        .filter({ hasText: /edit|save/i })
        .count(),
    ).toBe(0);
    await narrow(page);
    expect(unexpected(problems)).toEqual([]);
  });

  it('blocklist: refused by its field, add (the api then refuses links to it), remove', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const member = await createUser(suite.t);
    const { page, problems } = await suite.open({ viewport: NARROW });
    await openAdmin(page, admin, '/admin/blocklist', 'Blocklist');

    const entry = page.getByRole('textbox', { name: 'Domain or keyword' });
    await entry.fill('no dots');
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    expect(await fieldError(page, 'Domain or keyword')).toMatch(/entry/);

    const host = `${uniq('blocked')}.test`;
    await entry.fill(host);
    await page.getByRole('button', { name: 'Block', exact: true }).click();
    await page.getByText(`${host} is blocked.`).waitFor();
    await page.getByRole('cell', { name: host, exact: true }).waitFor();
    expect(await entry.inputValue()).toBe('');
    const refused = await suite.t
      .http()
      .post('/api/url/add')
      .set(member.auth)
      .send({ url: `https://${host}/x` });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('url: this destination is blocked');
    await narrow(page);

    await page.getByRole('button', { name: `Unblock ${host}` }).click();
    await page.getByRole('button', { name: `Confirm unblocking ${host}` }).click();
    await page.getByText(`${host} is no longer blocked.`).waitFor();
    expect(await page.getByRole('cell', { name: host, exact: true }).count()).toBe(0);
    const list = await suite.t.http().get('/api/admin/blocklist').set(admin.auth).expect(200);
    expect(list.body.data.blocklist.some((b: { entry: string }) => b.entry === host)).toBe(false);
    await eventually(
      async () =>
        (
          await suite.t
            .http()
            .post('/api/url/add')
            .set(member.auth)
            .send({ url: `https://${host}/x` })
        ).status === 200,
    );
    expect(unexpected(problems, /^400 .*\/api\/admin\/blocklist\/add$/)).toEqual([]);
  });

  it('disabled links: refused by its field, disable (the redirect answers 451), enable again', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const member = await createUser(suite.t);
    const added = await suite.t
      .http()
      .post('/api/url/add')
      .set(member.auth)
      .send({ url: 'https://example.com/admin-disable' })
      .expect(200);
    const linkId: number = added.body.id;
    const alias = (added.body.shorturl as string).split('/').pop() as string;
    expect((await visit(alias)).status).toBe(302);

    const { page, problems } = await suite.open({ viewport: NARROW });
    await openAdmin(page, admin, '/admin/links', 'Disabled links');
    const id = page.getByRole('textbox', { name: 'Id' });
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    expect(await fieldError(page, 'Id')).toMatch(/^id: enter the id/);
    await id.fill('abc');
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    // the api's message this time
    await eventually(
      async () => (await fieldError(page, 'Id')) === 'id: must be a positive integer',
    );
    await id.fill('2000000000');
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/not found/i);

    await id.fill(String(linkId));
    await page.getByRole('combobox', { name: 'What the id names' }).selectOption('link');
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await page.getByRole('status').getByText('Link has been disabled.').waitFor();
    await eventually(async () => (await visit(alias)).status === 451);
    const details = await suite.t.http().get(`/api/url/${linkId}`).set(member.auth).expect(200);
    expect(details.body.details.disabled).toBe(true);
    await narrow(page);

    // undo from the list of this visit's changes
    await page.getByRole('button', { name: `Enable id ${linkId}`, exact: true }).click();
    await page.getByRole('status').getByText('Link has been enabled.').waitFor();
    await eventually(async () => (await visit(alias)).status === 302);
    expect(
      unexpected(
        problems,
        /^400 .*\/api\/admin\/url\/abc\/disable$/,
        /^404 .*\/api\/admin\/url\/2000000000\/disable$/,
      ),
    ).toEqual([]);
  });

  it('reports: a report through the api, seen in the queue, dismiss, disable link (the redirect answers 451); axe and 375 px', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const member = await createUser(suite.t);
    const add = async (path: string) => {
      const res = await suite.t
        .http()
        .post('/api/url/add')
        .set(member.auth)
        .send({ url: `https://example.com/${path}` })
        .expect(200);
      return { id: res.body.id as number, shorturl: res.body.shorturl as string };
    };
    const bad = await add('reported-phish');
    const fine = await add('reported-fine');
    const alias = bad.shorturl.split('/').pop() as string;
    expect((await visit(alias)).status).toBe(302);
    const report = (body: Record<string, unknown>) =>
      suite.t
        .http()
        .post('/api/report')
        .set('X-Forwarded-For', '203.0.113.77')
        .send(body)
        .expect(200);
    await report({
      url: bad.shorturl,
      reason: 'phishing',
      details: 'asks for a password',
      email: 'who@example.org',
    });
    await report({ url: fine.shorturl, reason: 'spam' });

    const { page, problems } = await suite.open({ viewport: NARROW });
    await openAdmin(page, admin, '/admin/reports', 'Reports');
    const table = page.getByRole('table');
    await table.getByText(bad.shorturl, { exact: true }).waitFor();
    await table.getByText('who@example.org').waitFor();
    await table.getByText('asks for a password').waitFor();
    await narrow(page);

    // dismiss the report of the fine link: it leaves the open queue
    const fineRow = page.getByRole('row').filter({ hasText: fine.shorturl });
    await fineRow.getByRole('button', { name: /^Dismiss report / }).click();
    await page
      .getByRole('status')
      .getByText(/Report dismissed; 1 report resolved\./)
      .waitFor();
    await eventually(
      async () => (await page.getByRole('row').filter({ hasText: fine.shorturl }).count()) === 0,
    );
    expect((await visit(fine.shorturl.split('/').pop() as string)).status).toBe(302);

    // disable the reported link (asked first)
    const badRow = page.getByRole('row').filter({ hasText: bad.shorturl });
    await badRow.getByRole('button', { name: /^Disable link of report / }).click();
    await page.getByRole('button', { name: `Confirm disabling ${bad.shorturl}` }).click();
    await page
      .getByRole('status')
      .getByText(/Link disabled; 1 report resolved\./)
      .waitFor();
    await eventually(async () => (await visit(alias)).status === 451);
    const queue = await suite.t
      .http()
      .get('/api/admin/reports?status=disabled')
      .set(admin.auth)
      .expect(200);
    expect(queue.body.data.reports[0]).toMatchObject({
      status: 'disabled',
      link: { id: bad.id, disabled: true },
    });

    // the resolved ones under their status
    await page.getByRole('combobox', { name: 'Status' }).selectOption('disabled');
    await page.getByRole('table').getByText(bad.shorturl, { exact: true }).waitFor();
    await narrow(page);
    expect(unexpected(problems)).toEqual([]);

    const scan = await suite.open({ bypassCSP: true });
    await report({ url: fine.shorturl, reason: 'malware' });
    await openAdmin(scan.page, admin, '/admin/reports', 'Reports');
    await scan.page.getByRole('table').waitFor();
    expect(await axeViolations(scan.page)).toEqual([]);
  });

  it('has no serious or critical axe-core violation in any section, light or dark', async () => {
    const admin = await createUser(suite.t, { admin: true });
    const member = await createUser(suite.t);
    await suite.t
      .http()
      .post('/api/admin/blocklist/add')
      .set(admin.auth)
      .send({ entry: `${uniq('axe')}.test` })
      .expect(200);
    const { page } = await suite.open({ bypassCSP: true });
    await openAdmin(page, admin);
    const found: string[] = [];
    const scan = async (where: string) =>
      found.push(...(await axeViolations(page)).map((v) => `${where}: ${v}`));

    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.locator('[aria-invalid="true"]').first().waitFor();
    await scan('users');

    await page.goto(`${MAIN}/app/admin/users/${member.id}`);
    await page.getByRole('heading', { name: `User ${member.username}` }).waitFor();
    await page.getByRole('button', { name: 'Create login link' }).click();
    await page.getByRole('textbox', { name: 'Login link' }).waitFor();
    await scan('user');

    const sub = page.getByRole('navigation', { name: 'Admin area' });
    for (const [name, heading] of [
      ['Plans', 'Plans'],
      ['Blocklist', 'Blocklist'],
      ['Disabled links', 'Disabled links'],
      ['Reports', 'Reports'],
    ]) {
      await sub.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      if (name === 'Blocklist') await page.getByRole('table').waitFor();
      await scan(name);
    }
    expect(found).toEqual([]);
  });
});
