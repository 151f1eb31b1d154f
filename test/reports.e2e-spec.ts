import { isReservedAlias } from '@app/links';

import { DATE_TIME, expectError, expectHtmlHeaders, useSuite } from './support/app';
import { addLink, insertDomain, uniq } from './support/links';

const MAIN = 'short.test';
let seq = 0;
/** A client address of its own per use (the suites stand behind a trusted proxy on loopback). */
const nextIp = () => `198.51.${100 + Math.floor(seq / 250)}.${(seq++ % 250) + 1}`;

describe('abuse reports', () => {
  const { t, owner, admin, other } = useSuite({ owner: {}, admin: { admin: true }, other: {} });

  const page = (ip = nextIp()) =>
    t.http().get('/report').set('Host', MAIN).set('X-Forwarded-For', ip).redirects(0);
  const tokenOf = (html: string) => /name="token" value="([^"]+)"/.exec(html)![1];
  /** Opens the page and posts its form as a browser without script would. */
  const postForm = async (
    fields: Record<string, string>,
    opts: { ip?: string; headers?: Record<string, string>; token?: string } = {},
  ) => {
    const ip = opts.ip ?? nextIp();
    const token = opts.token ?? tokenOf((await page(ip)).text);
    let req = t
      .http()
      .post('/report')
      .set('Host', MAIN)
      .set('X-Forwarded-For', ip)
      .set('Origin', `http://${MAIN}`)
      .set('Sec-Fetch-Site', 'same-origin');
    for (const [k, v] of Object.entries(opts.headers ?? {})) req = req.set(k, v);
    return req
      .type('form')
      .send({ token, ...fields })
      .redirects(0);
  };
  const report = (body: Record<string, unknown>, ip = nextIp()) =>
    t.http().post('/api/report').set('X-Forwarded-For', ip).send(body);
  const link = (url = `https://target.example/${uniq('p')}`) => addLink(t, owner, { url });
  const reportsOf = (linkId: number) =>
    t.db.query(`SELECT * FROM abuse_reports WHERE link_id = $1 ORDER BY id`, [linkId]);

  describe('the page', () => {
    it('renders a plain form: no script, a strict CSP that lets it post to itself', async () => {
      const res = await page();
      const csp = expectHtmlHeaders(res, 200);
      expect(csp).not.toContain('script-src');
      expect(csp).toContain("form-action 'self'");
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).not.toContain('<script');
      expect(res.text).toContain('<form method="post" action="/report"');
      for (const name of ['url', 'reason', 'details', 'email', 'token'])
        expect(res.text).toContain(`name="${name}"`);
      for (const r of ['phishing', 'malware', 'spam', 'illegal', 'other'])
        expect(res.text).toContain(`<option value="${r}">`);
      expect(tokenOf(res.text)).toMatch(/^\d+\.[0-9a-f]{64}$/);
      await t.http().get('/report/').set('Host', MAIN).expect(200);
      await t.http().get('/report/x').set('Host', MAIN).expect(404);
    });

    it('is served on the main host only', async () => {
      const d = await insertDomain(t, owner.id);
      await t.http().get('/report').set('Host', d.host).expect(404);
    });

    it('`report` is reserved: never an alias', async () => {
      expect(isReservedAlias('report')).toBe(true);
      const res = await t
        .http()
        .post('/api/url/add')
        .set(owner.auth)
        .send({ url: 'https://example.com', custom: 'report' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    });
  });

  describe('reporting', () => {
    it('the form posts without JavaScript: a thank-you page, the report stored without the address', async () => {
      const l = await link();
      const ip = nextIp();
      const res = await postForm(
        {
          url: l.shorturl,
          reason: 'phishing',
          details: 'asks for <b>passwords</b>',
          email: 'r@example.org',
        },
        { ip },
      );
      expectHtmlHeaders(res, 200);
      expect(res.text).toContain('Thank you');
      expect(res.text).not.toContain('<script');
      const [row] = await reportsOf(l.id);
      expect(row).toMatchObject({
        link_id: l.id,
        reason: 'phishing',
        details: 'asks for <b>passwords</b>',
        email: 'r@example.org',
        status: 'open',
        resolved_at: null,
        resolved_by: null,
      });
      expect(row.reporter_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(row)).not.toContain(ip);
      expect(res.text).toContain(`number ${row.id}`);
    });

    it('POST /api/report (no key): {error: 0, id}', async () => {
      const l = await link();
      const res = await report({ url: l.shorturl, reason: 'spam' }).expect(200);
      expect(res.body).toEqual({ error: 0, id: expect.any(Number) });
      const [row] = await reportsOf(l.id);
      expect(row).toMatchObject({ id: res.body.id, reason: 'spam', details: '', email: null });
    });

    it('a link on a verified branded domain can be reported; an unverified domain cannot', async () => {
      const d = await insertDomain(t, owner.id);
      const l = await link();
      await report({ url: `https://${d.host}/${l.alias}`, reason: 'malware' }).expect(200);
      const u = await insertDomain(t, owner.id, { verified: false });
      expectError(
        await report({ url: `https://${u.host}/${l.alias}`, reason: 'malware' }),
        400,
        /^url: .* not a domain of this service/,
      );
    });

    it('every refusal names its field (JSON), and nothing is stored', async () => {
      const l = await link();
      const ok = { url: l.shorturl, reason: 'spam' };
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ ...ok, url: 'not a url' }, /^url: /],
        [{ ...ok, url: 12 }, /^url: /],
        [{ reason: 'spam' }, /^url: /],
        [{ ...ok, url: `http://${MAIN}/a/b` }, /^url: /],
        [
          { ...ok, url: `https://elsewhere.example/${l.alias}` },
          /^url: .*not a domain of this service/,
        ],
        [{ ...ok, url: `http://${MAIN}/${uniq('nope')}` }, /^url: no such short link/],
        [{ ...ok, reason: 'boring' }, /^reason: /],
        [{ url: l.shorturl }, /^reason: /],
        [{ ...ok, email: 'not-an-email' }, /^email: /],
        [{ ...ok, email: 'a@b' }, /^email: /],
        [{ ...ok, details: 'x'.repeat(1001) }, /^details: at most 1000/],
        [{ ...ok, details: 5 }, /^details: /],
      ];
      for (const [body, message] of cases) expectError(await report(body), 400, message);
      expect(await reportsOf(l.id)).toEqual([]);
    });

    it('a refused form answers the form again, the error next to the field and the values kept', async () => {
      const l = await link();
      const cases: Array<[Record<string, string>, string]> = [
        [{ url: 'nonsense', reason: 'spam' }, 'url'],
        [{ url: `http://${MAIN}/${uniq('nope')}`, reason: 'spam' }, 'url'],
        [{ url: `https://elsewhere.example/${l.alias}`, reason: 'spam' }, 'url'],
        [{ url: l.shorturl, reason: 'boring' }, 'reason'],
        [{ url: l.shorturl, reason: 'spam', email: 'nope' }, 'email'],
        [{ url: l.shorturl, reason: 'spam', details: 'y'.repeat(1001) }, 'details'],
      ];
      for (const [fields, field] of cases) {
        const res = await postForm(fields);
        expectHtmlHeaders(res, 400);
        expect(res.text).toContain(`aria-describedby="${field}-err"`);
        expect(res.text).toMatch(new RegExp(`<p class="err" id="${field}-err">${field}: `));
      }
      const res = await postForm({ url: '"><script>alert(1)</script>', reason: 'spam' });
      expect(res.text).not.toContain('<script>alert');
      expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;');
      expect(await reportsOf(l.id)).toEqual([]);
    });

    it('a cross-site form post is refused (403), and so is a form without a valid token', async () => {
      const l = await link();
      const fields = { url: l.shorturl, reason: 'spam' };
      const refused = [
        await postForm(fields, { headers: { Origin: 'https://evil.example' } }),
        await postForm(fields, { headers: { Origin: 'null' } }),
        await postForm(fields, { headers: { 'Sec-Fetch-Site': 'cross-site' } }),
        await postForm(fields, { token: '' }),
        await postForm(fields, { token: `${Math.floor(Date.now() / 1000)}.${'0'.repeat(64)}` }),
        await postForm(fields, {
          token: `${Math.floor(Date.now() / 1000) - 7200}.${'0'.repeat(64)}`,
        }),
      ];
      for (const res of refused) {
        expectHtmlHeaders(res, 403);
        expect(res.text).toContain('Form refused');
      }
      expect(await reportsOf(l.id)).toEqual([]);
      // a JSON body to the page is no form
      const json = await t
        .http()
        .post('/report')
        .set('Host', MAIN)
        .send({ url: l.shorturl, reason: 'spam' });
      expect(json.status).toBe(400);
    });

    it('rate limited per client address, page and API together: 429 with Retry-After', async () => {
      const l = await link();
      const ip = nextIp();
      for (let i = 0; i < 5; i++) await report({ url: l.shorturl, reason: 'spam' }, ip).expect(200);
      for (let i = 0; i < 3; i++) await report({ url: 'bad', reason: 'spam' }, ip).expect(400);
      for (let i = 0; i < 2; i++)
        expect((await postForm({ url: l.shorturl, reason: 'spam' }, { ip })).status).toBe(200);
      const refused = await report({ url: l.shorturl, reason: 'spam' }, ip);
      expectError(refused, 429, /Too many reports/);
      const wait = Number(refused.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(3600);
      const page429 = await postForm({ url: l.shorturl, reason: 'spam' }, { ip });
      expectHtmlHeaders(page429, 429);
      expect(Number(page429.headers['retry-after'])).toBeGreaterThan(0);
      expect(await reportsOf(l.id)).toHaveLength(7);
      // another address is not held back
      await report({ url: l.shorturl, reason: 'spam' }).expect(200);
    });
  });

  describe('the admin queue', () => {
    it('lists reports field by field, with the link and its report counts', async () => {
      const l = await link('https://target.example/queue');
      const first = (
        await report({
          url: l.shorturl,
          reason: 'phishing',
          details: 'd1',
          email: 'who@example.org',
        })
      ).body.id;
      const second = (await report({ url: l.shorturl, reason: 'other' })).body.id;
      const res = await t
        .http()
        .get('/api/admin/reports?status=open&limit=100')
        .set(admin.auth)
        .expect(200);
      expect(res.body.error).toBe('0');
      const mine = res.body.data.reports.filter(
        (r: { link: { id: number } }) => r.link.id === l.id,
      );
      expect(mine.map((r: { id: number }) => r.id)).toEqual([second, first]);
      expect(mine[1]).toEqual({
        id: first,
        date: expect.stringMatching(DATE_TIME),
        reason: 'phishing',
        details: 'd1',
        email: 'who@example.org',
        status: 'open',
        resolved: null,
        resolvedBy: null,
        link: {
          id: l.id,
          alias: l.alias,
          shorturl: l.shorturl,
          url: 'https://target.example/queue',
          owner: owner.id,
          disabled: false,
        },
        reports: 2,
        open: 2,
      });
      expect(mine[0]).toMatchObject({ id: second, reason: 'other', email: null, details: '' });
    });

    it('filters by status and pages', async () => {
      const l = await link();
      for (let i = 0; i < 3; i++) await report({ url: l.shorturl, reason: 'spam' });
      const res = await t
        .http()
        .get('/api/admin/reports?limit=2&page=1')
        .set(admin.auth)
        .expect(200);
      expect(res.body.data).toMatchObject({ perpage: 2, currentpage: 1, nextpage: 2 });
      expect(res.body.data.reports).toHaveLength(2);
      const total = res.body.data.result;
      expect(res.body.data.maxpage).toBe(Math.ceil(total / 2));
      const page2 = await t
        .http()
        .get('/api/admin/reports?limit=2&page=2')
        .set(admin.auth)
        .expect(200);
      expect(page2.body.data.reports[0].id).toBeLessThan(res.body.data.reports[1].id);
      for (const status of ['open', 'dismissed', 'disabled']) {
        const r = await t
          .http()
          .get(`/api/admin/reports?status=${status}&limit=100`)
          .set(admin.auth)
          .expect(200);
        for (const item of r.body.data.reports) expect(item.status).toBe(status);
      }
      expectError(
        await t.http().get('/api/admin/reports?status=closed').set(admin.auth),
        400,
        /^status: /,
      );
      expectError(await t.http().get('/api/admin/reports?limit=0').set(admin.auth), 400);
    });

    it('non-admins are refused (403), and without a key 401; the owner sees nothing of reports', async () => {
      const l = await link();
      await report({ url: l.shorturl, reason: 'spam', email: 'secret-reporter@example.org' });
      const [row] = await reportsOf(l.id);
      for (const u of [owner, other]) {
        expectError(await t.http().get('/api/admin/reports').set(u.auth), 403);
        expectError(
          await t
            .http()
            .put(`/api/admin/report/${row.id}/resolve`)
            .set(u.auth)
            .send({ action: 'dismiss' }),
          403,
        );
      }
      expectError(await t.http().get('/api/admin/reports'), 401);
      const details = await t.http().get(`/api/url/${l.id}`).set(owner.auth).expect(200);
      const list = await t.http().get('/api/urls?limit=100').set(owner.auth).expect(200);
      for (const body of [details.body, list.body]) {
        expect(JSON.stringify(body)).not.toContain('secret-reporter');
        expect(JSON.stringify(body)).not.toMatch(/report/i);
      }
      expect((await reportsOf(l.id))[0].status).toBe('open');
    });

    it('dismiss resolves every open report of the link, with an audit entry each; again is a 409', async () => {
      const l = await link();
      const a = (await report({ url: l.shorturl, reason: 'spam' })).body.id;
      const b = (await report({ url: l.shorturl, reason: 'malware' })).body.id;
      const other = await link();
      const c = (await report({ url: other.shorturl, reason: 'spam' })).body.id;
      const res = await t
        .http()
        .put(`/api/admin/report/${a}/resolve`)
        .set(admin.auth)
        .send({ action: 'dismiss' })
        .expect(200);
      expect(res.body).toEqual({ error: 0, message: 'Report dismissed; 2 reports resolved.' });
      const rows = await reportsOf(l.id);
      for (const r of rows) {
        expect(r.status).toBe('dismissed');
        expect(r.resolved_by).toBe(admin.id);
        expect(r.resolved_at).toBeInstanceOf(Date);
      }
      expect((await reportsOf(other.id))[0].status).toBe('open');
      // the link still forwards
      await t.http().get(`/${l.alias}`).set('Host', MAIN).redirects(0).expect(302);
      const audit = await t
        .http()
        .get('/api/audit?action=report.dismiss&limit=100')
        .set(admin.auth)
        .expect(200);
      const ids = audit.body.data.entries.map((e: { resource: { id: number } }) => e.resource.id);
      expect(ids).toEqual(expect.arrayContaining([a, b]));
      expect(ids).not.toContain(c);
      expect(
        audit.body.data.entries.find((e: { resource: { id: number } }) => e.resource.id === a),
      ).toMatchObject({
        action: 'report.dismiss',
        resource: { type: 'report', id: a },
        changes: ['status'],
        actor: { id: admin.id },
      });
      // the queue shows it resolved
      const q = await t
        .http()
        .get('/api/admin/reports?status=dismissed&limit=100')
        .set(admin.auth)
        .expect(200);
      expect(q.body.data.reports.find((r: { id: number }) => r.id === b)).toMatchObject({
        status: 'dismissed',
        resolved: expect.stringMatching(DATE_TIME),
        resolvedBy: admin.id,
        open: 0,
      });
      expectError(
        await t
          .http()
          .put(`/api/admin/report/${b}/resolve`)
          .set(admin.auth)
          .send({ action: 'disable' }),
        409,
      );
      expectError(
        await t
          .http()
          .put(`/api/admin/report/${c}/resolve`)
          .set(admin.auth)
          .send({ action: 'close' }),
        400,
        /^action: /,
      );
      expectError(
        await t
          .http()
          .put(`/api/admin/report/2000000000/resolve`)
          .set(admin.auth)
          .send({ action: 'dismiss' }),
        404,
      );
    });

    it('disable takes the link down: it answered 302, now 451; audit entries for the report and the link', async () => {
      const l = await link();
      await t.http().get(`/${l.alias}`).set('Host', MAIN).redirects(0).expect(302);
      const id = (await report({ url: l.shorturl, reason: 'phishing' })).body.id;
      const res = await t
        .http()
        .put(`/api/admin/report/${id}/resolve`)
        .set(admin.auth)
        .send({ action: 'disable' })
        .expect(200);
      expect(res.body).toEqual({ error: 0, message: 'Link disabled; 1 report resolved.' });
      const gone = await t.http().get(`/${l.alias}`).set('Host', MAIN).redirects(0);
      expectHtmlHeaders(gone, 451);
      const [row] = await reportsOf(l.id);
      expect(row).toMatchObject({ status: 'disabled', resolved_by: admin.id });
      const q = await t
        .http()
        .get('/api/admin/reports?status=disabled&limit=100')
        .set(admin.auth)
        .expect(200);
      expect(q.body.data.reports.find((r: { id: number }) => r.id === id).link.disabled).toBe(true);
      const entries: Array<{ action: string; resource_id: string }> = await t.db.query(
        `SELECT action, resource_id FROM audit_log WHERE workspace_id = $1
           AND ((action = 'report.disable' AND resource_id = $2) OR (action = 'link.disable' AND resource_id = $3))`,
        [admin.id, String(id), String(l.id)],
      );
      expect(entries.map((e) => e.action).sort()).toEqual(['link.disable', 'report.disable']);
    });
  });
});
