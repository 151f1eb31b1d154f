import { Page } from 'playwright-core';

import { sha256 } from '@app/common';

import { createPlan, createUser, TestApp, TestUser } from './support/app';
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
 * The team page (/app/team: workspaces, members, named keys) and the settings page
 * (/app/settings: account, e-mail, password, key rotation) in a real Chromium against the real
 * api (docs/teams.md, docs/sessions.md), and the session's journeys seen from the app: CSRF, an
 * ended session, one user never seeing another's team.
 */
describe('the team and settings pages', () => {
  const suite = webSuite();
  let t: TestApp;
  /** a plan with the team feature, unlimited members */
  let teamPlan: number;

  beforeAll(async () => {
    t = suite.t;
    teamPlan = await createPlan(t, { team: { enabled: '1', count: '0' } });
  });

  const owner = () => createUser(t, { planId: teamPlan });
  const get = (path: string, auth: Record<string, string>) => t.http().get(path).set(auth);
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
  /** The text of the status region that says `text` (a change's outcome). */
  const status = (page: Page, text: string | RegExp) =>
    page.getByRole('status').filter({ hasText: text }).waitFor();
  /** The text of the focused element. */
  const focused = (page: Page) =>
    page.evaluate('document.activeElement && document.activeElement.textContent');
  /** The accessible label (aria-label) of the focused element. */
  const focusedLabel = (page: Page) =>
    page.evaluate('document.activeElement && document.activeElement.getAttribute("aria-label")');
  /** Problems but the failures a test provokes on purpose (`statuses`). */
  const unexpected = (problems: string[], statuses: number[]) =>
    problems.filter((p) => !statuses.some((s) => p.startsWith(`${s} `)));

  it('adds a member by e-mail with a role, changes the role, removes the member; an unknown e-mail is shown by its field', async () => {
    const a = await owner();
    const b = await createUser(t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, a, '/team', 'Team');
    await page.getByText('No members yet').waitFor();

    const email = page.getByLabel("Member's email", { exact: true });
    await email.fill(`nobody-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Add member' }).click();
    expect(await fieldError(page, "Member's email")).toBe('email: no user has this e-mail address');

    await email.fill(b.email);
    await page.getByLabel('Role', { exact: true }).selectOption('editor');
    await page.getByRole('button', { name: 'Add member' }).click();
    await status(page, `${b.email} was added as editor.`);
    const role = page.getByRole('combobox', { name: `Role of ${b.email}` });
    expect(await role.inputValue()).toBe('editor');
    expect(await email.inputValue()).toBe('');
    let members = (await get('/api/team', a.auth).expect(200)).body.data.members;
    expect(members.map((m: TestUser & { role: string }) => [m.email, m.role])).toEqual([
      [b.email, 'editor'],
    ]);

    await role.selectOption('admin');
    await page.getByRole('button', { name: `Change role of ${b.email}` }).click();
    await status(page, `${b.email} is now admin.`);
    members = (await get('/api/team', a.auth).expect(200)).body.data.members;
    expect(members.map((m: { role: string }) => m.role)).toEqual(['admin']);
    // the member now acts in the owner's workspace as admin
    await get('/api/keys', { ...b.auth, 'X-Workspace': String(a.id) }).expect(200);

    await page.getByRole('button', { name: `Remove ${b.email}` }).click();
    await page.getByRole('button', { name: `Confirm removing ${b.email}` }).click();
    await status(page, `${b.email} was removed from the team.`);
    await page.getByText('No members yet').waitFor();
    members = (await get('/api/team', a.auth).expect(200)).body.data.members;
    expect(members).toEqual([]);
    expect(unexpected(problems, [404])).toEqual([]);
  });

  it('shows the API message when the plan lacks the team feature', async () => {
    const solo = await createUser(t);
    const other = await createUser(t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, solo, '/team', 'Team');
    await page.getByLabel("Member's email", { exact: true }).fill(other.email);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Your plan does not include the "team" feature' })
      .waitFor();
    expect(unexpected(problems, [403])).toEqual([]);
  });

  it('makes a named key with scopes, shows it once, lists it by prefix, edits and deletes it', async () => {
    const a = await owner();
    const { page, problems } = await suite.open();
    await openSignedIn(page, a, '/team', 'Team');
    await page.getByText('No named keys yet.').waitFor();

    await page.getByRole('button', { name: 'New key' }).click();
    const name = page.getByRole('textbox', { name: 'Key name' });
    // the focus is on the form's first field
    expect(await page.evaluate("document.activeElement.getAttribute('maxlength')")).toBe('64');
    await name.fill('CI deploys');
    // no scope: the API's message under the scopes
    await page.getByRole('button', { name: 'Create key' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^scopes: / })
      .waitFor();
    // an expiry in the past: by its field
    await page.getByRole('checkbox', { name: 'links:write' }).check();
    await page.getByRole('checkbox', { name: 'stats:read' }).check();
    await page.getByLabel('Expires (optional)').fill('2020-01-01T10:00');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await fieldError(page, 'Expires (optional)')).toMatch(/^expires: /);

    await page.getByLabel('Expires (optional)').fill('');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('textbox', { name: 'New key “CI deploys”' });
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^lk_/);
    // focus is on the key, to copy it
    expect(await page.evaluate('document.activeElement.value')).toBe(key);
    // listed by its prefix, never in full
    const prefix = key.slice(0, 10);
    await page.getByRole('cell', { name: `${prefix}…` }).waitFor();
    const listed = (await get('/api/keys', a.auth).expect(200)).body.data.keys;
    expect(listed.map((k: { name: string; prefix: string; scopes: string[] }) => k)).toEqual([
      expect.objectContaining({
        name: 'CI deploys',
        prefix,
        scopes: ['links:write', 'stats:read'],
        expires: null,
      }),
    ]);
    // the key works within its scopes
    await get('/api/urls', bearer(key)).expect(200);
    await get('/api/team', bearer(key)).expect(403);

    await page.getByRole('button', { name: 'Done' }).click();
    expect(await shown.count()).toBe(0);
    expect(await focused(page)).toBe('New key');
    await page.reload();
    await page.getByRole('cell', { name: `${prefix}…` }).waitFor();
    expect(await page.content()).not.toContain(key);

    // edit: cancelled, then name and scopes; either way the focus is back on the key's "Edit"
    await page.getByRole('button', { name: 'Edit key CI deploys' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await focusedLabel(page)).toBe('Edit key CI deploys');
    await page.getByRole('button', { name: 'Edit key CI deploys' }).click();
    const editName = page.getByRole('textbox', { name: 'Key name' });
    expect(await editName.inputValue()).toBe('CI deploys');
    await editName.fill('CI');
    await page.getByRole('checkbox', { name: 'stats:read' }).uncheck();
    await page.getByRole('checkbox', { name: 'team:read' }).check();
    await page.getByRole('button', { name: 'Save key' }).click();
    await status(page, 'Key “CI” was saved.');
    const editCi = page.getByRole('button', { name: 'Edit key CI', exact: true });
    await editCi.waitFor();
    expect(await focusedLabel(page)).toBe('Edit key CI');
    const edited = (await get('/api/keys', a.auth).expect(200)).body.data.keys[0];
    expect([edited.name, edited.scopes]).toEqual(['CI', ['links:write', 'team:read']]);
    await get('/api/team', bearer(key)).expect(200);

    await page.getByRole('button', { name: 'Delete key CI' }).click();
    await page.getByRole('button', { name: 'Confirm deleting key CI' }).click();
    await status(page, 'Key “CI” was deleted: it no longer works.');
    await page.getByText('No named keys yet.').waitFor();
    expect((await get('/api/keys', a.auth).expect(200)).body.data.keys).toEqual([]);
    await get('/api/urls', bearer(key)).expect(401);
    expect(unexpected(problems, [400])).toEqual([]);
  });

  it('lists keys a page at a time (the server paginates); deleting the last one of the last page shows the page before', async () => {
    const a = await owner();
    for (let i = 1; i <= 21; i++)
      await t
        .http()
        .post('/api/key/add')
        .set(a.auth)
        .send({ name: `key ${String(i).padStart(2, '0')}`, scopes: ['links:read'] })
        .expect(200);
    const { page, problems } = await suite.open();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/keys')) asked.push(new URL(r.url()).search);
    });
    await openSignedIn(page, a, '/team', 'Team');
    // newest first: key 21 … key 02 on the first page
    await page.getByRole('button', { name: 'Edit key key 21' }).waitFor();
    expect(await page.getByRole('button', { name: /^Edit key / }).count()).toBe(20);
    await page.getByText('Page 1 of 2').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2 of 2').waitFor();
    expect(await page.getByRole('button', { name: /^Edit key / }).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete key key 01' }).click();
    await page.getByRole('button', { name: 'Confirm deleting key key 01' }).click();
    await page.getByRole('button', { name: 'Edit key key 21' }).waitFor();
    expect(await page.getByRole('button', { name: /^Edit key / }).count()).toBe(20);
    expect(asked).toEqual(expect.arrayContaining(['?page=1&limit=20', '?page=2&limit=20']));
    expect(problems).toEqual([]);
  });

  it('works by keyboard alone: adding a member, a new key, rotating the key', async () => {
    const a = await owner();
    const b = await createUser(t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, a, '/team', 'Team');
    const label = () =>
      page.evaluate(
        '(() => { const e = document.activeElement; return e && (e.labels && e.labels[0] ? e.labels[0].textContent : e.getAttribute("aria-label") || e.textContent); })()',
      );
    await page.getByLabel("Member's email", { exact: true }).focus();
    await page.keyboard.type(b.email);
    await page.keyboard.press('Tab');
    expect(await label()).toBe('Role');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    expect(await label()).toBe('Add member');
    await page.keyboard.press('Enter');
    await status(page, `${b.email} was added as editor.`);
    // ready for the next one
    expect(await label()).toBe("Member's email");

    await page.getByRole('button', { name: 'New key' }).focus();
    await page.keyboard.press('Enter');
    expect(await label()).toBe('Key name');
    await page.keyboard.type('by keyboard');
    await page.keyboard.press('Tab');
    expect(await label()).toBe('*');
    await page.keyboard.press('Tab');
    expect(await label()).toBe('links:read');
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Create key' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'New key “by keyboard”' }).waitFor();
    expect(await label()).toBe('New key “by keyboard”');
    const keys = (await get('/api/keys', a.auth).expect(200)).body.data.keys;
    expect(keys.map((k: { scopes: string[] }) => k.scopes)).toEqual([['links:read']]);

    await page.goto(`${MAIN}/app/settings`);
    await page.getByRole('button', { name: 'Rotate API key' }).focus();
    await page.keyboard.press('Enter');
    expect(await label()).toBe('Confirm rotating the API key');
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'New API key' }).waitFor();
    expect(await label()).toBe('New API key');
    await get('/api/account', a.auth).expect(401);
    expect(problems).toEqual([]);
  });

  it('settings: changes the e-mail and user name, rotates the key, changes the password and signs in again', async () => {
    const a = await owner();
    const taken = await createUser(t);
    const { page, problems } = await suite.open();
    await openSignedIn(page, a, '/settings', 'Settings');

    // e-mail and user name: invalid, taken (each by its field), then new ones
    const email = page.getByRole('textbox', { name: 'Email address' });
    const username = page.getByRole('textbox', { name: 'User name' });
    const save = page.getByRole('button', { name: 'Save profile' });
    expect(await email.inputValue()).toBe(a.email);
    expect(await username.inputValue()).toBe(a.username);
    expect(await save.isDisabled()).toBe(true);
    await email.fill('not-an-email');
    await save.click();
    expect(await fieldError(page, 'Email address')).toMatch(/^email: /);
    await email.fill(taken.email);
    await save.click();
    expect(await fieldError(page, 'Email address')).toBe(
      'email: a user with this e-mail already exists',
    );
    await email.fill(a.email);
    await username.fill('has space');
    await save.click();
    expect(await fieldError(page, 'User name')).toMatch(/^username: must be 3 to 32 characters/);
    await username.fill(taken.username.toUpperCase());
    await save.click();
    expect(await fieldError(page, 'User name')).toBe('username: this username is already taken');
    // the field the API named has the focus
    expect(await page.evaluate('document.activeElement.name')).toBe('username');
    const newEmail = `new-${a.email}`;
    const newName = `renamed.${a.id}`;
    await email.fill(newEmail);
    await username.fill(newName);
    await save.click();
    await status(page, 'Account has been updated successfully.');
    expect((await get('/api/account', a.auth).expect(200)).body.data).toMatchObject({
      email: newEmail,
      username: newName,
    });
    await page.getByRole('definition').filter({ hasText: newName }).waitFor();
    // the header names the person by the new name at once
    await page.getByRole('banner').getByText(newName, { exact: true }).waitFor();

    // the key: a confirmation, the new key once; the old one stops working
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    await page.getByRole('button', { name: 'Confirm rotating the API key' }).click();
    const shown = page.getByRole('textbox', { name: 'New API key' });
    await shown.waitFor();
    const rotated = await shown.inputValue();
    expect(rotated).not.toBe(a.apiKey);
    await get('/api/account', a.auth).expect(401);
    await get('/api/account', bearer(rotated)).expect(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await shown.count()).toBe(0);

    // the password: the two must agree, the API's rule by its field
    const password = page.getByLabel('New password', { exact: true });
    const again = page.getByLabel('New password again', { exact: true });
    await password.fill('new-password-1');
    await again.fill('new-password-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await fieldError(page, 'New password again')).toBe('confirm: the two passwords differ');
    await password.fill('abc');
    await again.fill('abc');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await fieldError(page, 'New password')).toMatch(/^password: /);
    await password.fill('new-password-1');
    await again.fill('new-password-1');
    await page.getByRole('button', { name: 'Change password' }).click();
    // every session ended, this one too: the page says so and leads to the sign-in page
    await page.getByRole('heading', { name: 'Your password has been changed' }).waitFor();
    expect(await focused(page)).toBe('Your password has been changed');
    await t
      .http()
      .post('/auth/session')
      .send({ email: newEmail, password: a.password })
      .expect(401);
    await page.getByRole('button', { name: 'Sign in again' }).click();
    await page.waitForURL(`${MAIN}/app/sign-in`);
    await signIn(page, { ...a, email: newEmail, password: 'new-password-1' });
    expect(unexpected(problems, [400, 401, 409])).toEqual([]);
  });

  it('refuses a change without the X-CSRF-Token while the app’s own calls succeed', async () => {
    const a = await owner();
    const { page, problems } = await suite.open();
    await openSignedIn(page, a, '/team', 'Team');
    const forged = await page.evaluate(async () => {
      const res = await fetch('/api/url/add', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/forged' }),
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    });
    expect(forged.status).toBe(403);
    expect(forged.body.message).toMatch(/^Missing or wrong X-CSRF-Token/);
    expect((await get('/api/urls', a.auth).expect(200)).body.data.urls).toEqual([]);

    // the app's own change carries the token
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('textbox', { name: 'Key name' }).fill('app');
    await page.getByRole('checkbox', { name: 'links:read' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('textbox', { name: 'New key “app”' }).waitFor();
    expect((await get('/api/keys', a.auth).expect(200)).body.data.keys).toHaveLength(1);
    expect(unexpected(problems, [403])).toEqual([]);
  });

  it('an ended session: the next action says so, and the app returns to the sign-in page', async () => {
    const a = await owner();
    const { page, problems } = await suite.open();
    await openSignedIn(page, a, '/team', 'Team');
    await page.getByText('No named keys yet.').waitFor();
    const cookie = (await page.context().cookies()).find((c) => c.name === 'lm_session');
    expect(cookie).toBeDefined();
    // the session ends server-side (as a sign-out elsewhere or its expiry would end it)
    expect(await t.redis.client.del(t.redis.key('session', sha256(cookie!.value)))).toBe(1);

    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('textbox', { name: 'Key name' }).fill('late');
    await page.getByRole('checkbox', { name: 'links:read' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    // the sign-in page at once, saying why
    await page.waitForURL(`${MAIN}/app/sign-in`);
    await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor();
    expect((await get('/api/keys', a.auth).expect(200)).body.data.keys).toEqual([]);
    // signing in again works, and the page is there again
    await openSignedIn(page, a, '/team', 'Team');
    await page.getByText('No named keys yet.').waitFor();
    expect(unexpected(problems, [401])).toEqual([]);
  });

  it('never shows one user another’s team or keys; a member acts in the owner’s workspace through the Workspace choice', async () => {
    const a = await owner();
    const member = await createUser(t);
    const stranger = await createUser(t);
    await t
      .http()
      .post('/api/team/add')
      .set(a.auth)
      .send({ email: member.email, role: 'viewer' })
      .expect(200);
    await t
      .http()
      .post('/api/key/add')
      .set(a.auth)
      .send({ name: 'secret-ci', scopes: ['links:read'] })
      .expect(200);
    const ownersLink = `https://example.com/owners-${a.id}`;
    await t.http().post('/api/url/add').set(a.auth).send({ url: ownersLink }).expect(200);

    const { page, problems } = await suite.open();
    await openSignedIn(page, stranger, '/team', 'Team');
    await page.getByText('No members yet').waitFor();
    await page.getByText('No named keys yet.').waitFor();
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain(member.email);
    expect(text).not.toContain('secret-ci');
    expect(await page.getByRole('combobox', { name: 'Workspace' }).count()).toBe(0);

    // the member: its own workspace first, then the owner's (as viewer)
    const other = await suite.open({ bypassCSP: true });
    await openSignedIn(other.page, member, '/team', 'Team');
    await other.page.getByRole('cell', { name: a.username, exact: true }).waitFor();
    await other.page.getByText('No members yet').waitFor();
    await other.page.getByRole('combobox', { name: 'Workspace' }).selectOption(String(a.id));
    await other.page.getByRole('combobox', { name: `Role of ${member.email}` }).waitFor();
    await other.page.getByText('Named keys are managed by the workspace').waitFor();
    expect(await other.page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
    expect(((await other.page.locator('main').textContent()) ?? '').includes('secret-ci')).toBe(
      false,
    );
    // every page acts in the chosen workspace: the owner's links, also after a reload
    await other.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Links' })
      .click();
    await other.page.getByText(ownersLink).waitFor();
    await other.page.reload();
    await other.page.getByText(ownersLink).waitFor();
    // the account is the person's own, whatever the workspace
    await other.page.goto(`${MAIN}/app/settings`);
    await other.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await other.page.getByText(member.email).first().waitFor();
    // back to one's own: none of the owner's links
    await other.page.getByRole('combobox', { name: 'Workspace' }).selectOption(String(member.id));
    await other.page.goto(`${MAIN}/app/links`);
    await other.page.getByText('No links yet').waitFor();
    expect(await other.page.getByText(ownersLink).count()).toBe(0);
    // the header with its Workspace choice: at 375 px, and for axe
    await other.page.setViewportSize(NARROW);
    expect(await scrollWidth(other.page)).toBeLessThanOrEqual(NARROW.width);
    expect(await axeViolations(other.page)).toEqual([]);
    expect(problems).toEqual([]);
    expect(other.problems).toEqual([]);
  });

  it('has no serious or critical axe-core violation and fits 375 px: the team page', async () => {
    const a = await owner();
    const member = await createUser(t);
    await t
      .http()
      .post('/api/team/add')
      .set(a.auth)
      .send({ email: member.email, role: 'editor' })
      .expect(200);
    await t
      .http()
      .post('/api/key/add')
      .set(a.auth)
      .send({ name: 'a key with a rather long name for narrow screens', scopes: ['*'] })
      .expect(200);
    const { page } = await suite.open({ viewport: NARROW, bypassCSP: true });
    await openSignedIn(page, a, '/team', 'Team');
    await page.getByRole('combobox', { name: `Role of ${member.email}` }).waitFor();
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /^name: / })
      .waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('has no serious or critical axe-core violation and fits 375 px: the settings page', async () => {
    const a = await owner();
    const { page } = await suite.open({ viewport: NARROW, bypassCSP: true });
    await openSignedIn(page, a, '/settings', 'Settings');
    await page.getByRole('textbox', { name: 'Email address' }).fill('bad');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await fieldError(page, 'Email address');
    await page.getByRole('button', { name: 'Rotate API key' }).click();
    await page.getByRole('button', { name: 'Confirm rotating the API key' }).click();
    await page.getByRole('textbox', { name: 'New API key' }).waitFor();
    expect(await scrollWidth(page)).toBeLessThanOrEqual(NARROW.width);
    expect(await axeViolations(page)).toEqual([]);
  });
});
