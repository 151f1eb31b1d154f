import { DnsResolver } from '../apps/api/src/domains/dns.resolver';
import { createPlan, createUser, expectError, useTestApp } from './support/app';
import { apiRoutes, countOwned, insertLink, resourceApi, uniq } from './support/resources';

const ROUTES = apiRoutes({
  'GET /api/domains': { list: 'domains' },
  'POST /api/domain/add': { body: { domain: 'https://a.example' } },
  'PUT /api/domain/{id}/update': { body: {} },
  'DELETE /api/domain/{id}/delete': {},
});

describe('branded domains', () => {
  const t = useTestApp();
  let unlimitedPlan: number;

  beforeAll(async () => {
    unlimitedPlan = await createPlan(t, { domain: { enabled: '1', count: '0' } });
  });

  const { add, list, update, remove, onePage, expectPagination } = resourceApi(
    t,
    'domain',
    '/api/domains',
    'domains',
  );
  const host = () => `${uniq('brand')}.example.com`;
  const row = async (id: number) =>
    (
      await t.db.query(
        `SELECT user_id, domain, host, redirect_root, redirect_404 FROM domains WHERE id = $1`,
        [id],
      )
    )[0];

  ROUTES.itChecksEveryRoute(t);

  describe('POST /api/domain/add and GET /api/domains', () => {
    it('adds a domain and lists it in the documented shape', async () => {
      const u = await createUser(t);
      const h = host();
      const res = await add(u, { domain: `https://${h}` }).expect(200);
      expect(res.body).toEqual({ error: 0, id: expect.any(Number), verification: null });
      expect((await list(u).expect(200)).body).toEqual(
        onePage([
          {
            id: res.body.id,
            domain: `https://${h}`,
            redirectroot: '',
            redirect404: '',
            verified: true,
            verification: null,
            target: null,
          },
        ]),
      );
    });

    it('stores the redirects, and the host lower-cased for Host-header lookups', async () => {
      const u = await createUser(t);
      const h = host();
      const body = {
        domain: `HTTP://${h.toUpperCase()}/`,
        redirectroot: 'https://www.example.com/Home?x=1',
        redirect404: 'http://www.example.com/404',
      };
      const { id } = (await add(u, body).expect(200)).body;
      expect((await list(u)).body.data.domains).toEqual([
        {
          id,
          domain: `http://${h}`,
          redirectroot: body.redirectroot,
          redirect404: body.redirect404,
          verified: true,
          verification: null,
          target: null,
        },
      ]);
      expect(await row(id)).toEqual({
        user_id: u.id,
        domain: `http://${h}`,
        host: h,
        redirect_root: body.redirectroot,
        redirect_404: body.redirect404,
      });
    });

    it('stores an internationalised name as punycode', async () => {
      const u = await createUser(t);
      const label = uniq('b');
      const { id } = (await add(u, { domain: `https://${label}ü.example` }).expect(200)).body;
      expect((await row(id)).host).toMatch(/^xn--/);
    });

    it("lists only the caller's domains, paginated newest first", async () => {
      const u = await createUser(t, { planId: unlimitedPlan });
      const other = await createUser(t, { planId: unlimitedPlan });
      await add(other, { domain: `https://${host()}` }).expect(200);
      const ids: number[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await add(u, { domain: `https://${host()}` }).expect(200)).body.id);
      await expectPagination(u, ids);
    });

    it.each([
      ['no domain', {}, /^domain: /],
      ['a numeric domain', { domain: 42 }, /^domain: /],
      ['a null domain', { domain: null }, /^domain: /],
      [
        'a domain without scheme',
        { domain: 'brand.example.com' },
        /^domain: must be http:\/\/host or https:\/\/host/,
      ],
      ['an ftp domain', { domain: 'ftp://brand.example.com' }, /^domain: /],
      ['a domain with a path', { domain: 'https://brand.example.com/path' }, /^domain: .*no path/],
      ['a domain with a query', { domain: 'https://brand.example.com?a=1' }, /^domain: .*no path/],
      [
        'a domain with credentials',
        { domain: 'https://me:pw@brand.example.com' },
        /^domain: .*credentials/,
      ],
      ['a domain with a port', { domain: 'https://brand.example.com:8443' }, /^domain: .*port/],
      ['an IP address', { domain: 'http://203.0.113.7' }, /^domain: .*IP address/],
      ['a single-label host', { domain: 'http://intranet' }, /^domain: .*valid host name/],
      ['an over-long domain', { domain: `https://${'a'.repeat(300)}.com` }, /^domain: /],
      [
        "the service's own host",
        { domain: 'https://SHORT.test' },
        /^domain: is the service's own host name/,
      ],
      [
        'redirectroot ftp://x',
        { domain: 'https://ok.example.com', redirectroot: 'ftp://x' },
        /^redirectroot: must be an empty string or an absolute http\(s\) URL/,
      ],
      [
        'a relative redirectroot',
        { domain: 'https://ok.example.com', redirectroot: '/home' },
        /^redirectroot: /,
      ],
      [
        'a javascript: redirect404',
        { domain: 'https://ok.example.com', redirect404: 'javascript:alert(1)' },
        /^redirect404: /,
      ],
      [
        'a numeric redirect404',
        { domain: 'https://ok.example.com', redirect404: 404 },
        /^redirect404: /,
      ],
      [
        'a null redirectroot',
        { domain: 'https://ok.example.com', redirectroot: null },
        /^redirectroot: /,
      ],
      [
        'an over-long redirectroot',
        { domain: 'https://ok.example.com', redirectroot: `https://x.com/${'a'.repeat(2048)}` },
        /^redirectroot: /,
      ],
      ['an unknown field', { domain: 'https://ok.example.com', host: 'x' }, /host: unknown field/],
    ])('400 for %s, storing nothing', async (_label, body, message) => {
      const u = await createUser(t);
      expectError(await add(u, body), 400, message);
      expect(await countOwned(t, 'domains', u.id)).toBe(0);
    });

    it('409 for a domain already registered by anyone, whatever the case or scheme', async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const h = host();
      await add(u, { domain: `https://${h}` }).expect(200);
      expectError(
        await add(other, { domain: `http://${h.toUpperCase()}` }),
        409,
        /^domain: this domain is already registered$/,
      );
      expect(await countOwned(t, 'domains', other.id)).toBe(0);
    });

    it('409 for concurrent adds of one domain: exactly one wins', async () => {
      const users = await Promise.all([createUser(t), createUser(t), createUser(t)]);
      const h = host();
      const results = await Promise.all(users.map((u) => add(u, { domain: `https://${h}` })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      for (const r of results.filter((x) => x.status === 409)) expectError(r, 409, /^domain: /);
    });
  });

  describe('plan limits', () => {
    it('403 naming the limit past the plan count (free plan: 1)', async () => {
      const u = await createUser(t);
      await add(u, { domain: `https://${host()}` }).expect(200);
      expectError(
        await add(u, { domain: `https://${host()}` }),
        403,
        /Plan limit reached: your plan allows 1 domain/,
      );
      expect(await countOwned(t, 'domains', u.id)).toBe(1);
    });

    it('403 when branded domains are disabled by the plan', async () => {
      const plan = await createPlan(t, { domain: { enabled: '0', count: '5' } });
      const u = await createUser(t, { planId: plan });
      expectError(await add(u, { domain: `https://${host()}` }), 403, /"domain" feature/);
      expect(await countOwned(t, 'domains', u.id)).toBe(0);
    });

    it('concurrent adds cannot pass the count', async () => {
      const plan = await createPlan(t, { domain: { enabled: '1', count: '2' } });
      const u = await createUser(t, { planId: plan });
      const results = await Promise.all(
        Array.from({ length: 5 }, () => add(u, { domain: `https://${host()}` })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 403, 403, 403]);
      expect(await countOwned(t, 'domains', u.id)).toBe(2);
    });
  });

  describe('PUT /api/domain/:id/update', () => {
    it('changes either redirect, clears one with "", and accepts an empty body', async () => {
      const u = await createUser(t);
      const h = host();
      const { id } = (
        await add(u, {
          domain: `https://${h}`,
          redirectroot: 'https://a.example/',
          redirect404: 'https://b.example/',
        }).expect(200)
      ).body;
      const put = (body: object) => update(u, id, body);
      const expectListed = async (redirectroot: string, redirect404: string) =>
        expect((await list(u)).body.data.domains[0]).toEqual({
          id,
          domain: `https://${h}`,
          redirectroot,
          redirect404,
          verified: true,
          verification: null,
          target: null,
        });

      expect((await put({ redirectroot: 'https://c.example/' }).expect(200)).body).toEqual({
        error: 0,
        message: expect.any(String),
      });
      await expectListed('https://c.example/', 'https://b.example/');

      await put({ redirect404: '' }).expect(200);
      await expectListed('https://c.example/', '');

      await put({ redirectroot: 'http://d.example/x', redirect404: 'http://e.example/y' }).expect(
        200,
      );
      await put({}).expect(200);
      await expectListed('http://d.example/x', 'http://e.example/y');
    });

    it('400 for invalid redirects, for the domain itself and for a bad id; nothing changes', async () => {
      const u = await createUser(t);
      const { id } = (
        await add(u, { domain: `https://${host()}`, redirectroot: 'https://a.example/' }).expect(
          200,
        )
      ).body;
      const before = await row(id);
      const put = (body: object) => update(u, id, body);
      expectError(await put({ redirectroot: 'ftp://x' }), 400, /^redirectroot: /);
      expectError(
        await put({ redirectroot: 'https://ok.example', redirect404: 'nope' }),
        400,
        /^redirect404: /,
      );
      expectError(await put({ redirectroot: null }), 400, /^redirectroot: /);
      expectError(await put({ redirectroot: true }), 400, /^redirectroot: /);
      expectError(await put({ domain: 'https://other.example.com' }), 400, /domain: unknown field/);
      expectError(await update(u, 'x1', {}), 400, /^id: must be a positive integer/);
      expect(await row(id)).toEqual(before);
    });

    it("404 for an unknown id and another user's domain, which stays unchanged", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const { id } = (await add(owner, { domain: `https://${host()}` }).expect(200)).body;
      const before = await row(id);
      expectError(
        await update(intruder, id, { redirectroot: 'https://evil.example/' }),
        404,
        /^Domain not found$/,
      );
      expectError(await update(intruder, id, {}), 404, /^Domain not found$/);
      expectError(await update(owner, 2147483647, {}), 404, /^Domain not found$/);
      expect(await row(id)).toEqual(before);
    });
  });

  describe('DELETE /api/domain/:id/delete', () => {
    it("deletes the domain; its links stay and fall back to the service's domain", async () => {
      const u = await createUser(t);
      const { id } = (await add(u, { domain: `https://${host()}` }).expect(200)).body;
      const link = await insertLink(t, u.id, { domainId: id });
      const res = await remove(u, id).expect(200);
      expect(res.body).toEqual({ error: 0, message: expect.any(String) });
      expect((await list(u)).body.data).toMatchObject({ result: 0, domains: [] });
      expect(await t.db.query(`SELECT domain_id FROM links WHERE id = $1`, [link.id])).toEqual([
        { domain_id: null },
      ]);
      expectError(await remove(u, id), 404);
    });

    it('frees the host for anyone to add again', async () => {
      const u = await createUser(t);
      const other = await createUser(t);
      const h = host();
      const { id } = (await add(u, { domain: `https://${h}` }).expect(200)).body;
      await remove(u, id).expect(200);
      await add(other, { domain: `https://${h}` }).expect(200);
    });

    it("404 for another user's domain, which stays", async () => {
      const owner = await createUser(t);
      const intruder = await createUser(t);
      const { id } = (await add(owner, { domain: `https://${host()}` }).expect(200)).body;
      expectError(await remove(intruder, id), 404, /^Domain not found$/);
      expectError(await remove(owner, -3), 400, /^id: /);
      expect(await countOwned(t, 'domains', owner.id)).toBe(1);
    });
  });

  describe('with DOMAIN_VERIFY=dns', () => {
    const dnsApp = useTestApp({
      DOMAIN_VERIFY: 'dns',
      SERVICE_IPS: '203.0.113.7',
      SERVICE_HOST: 'edge.short.test',
    });
    const dns = resourceApi(dnsApp, 'domain', '/api/domains', 'domains');
    afterEach(() => jest.restoreAllMocks());

    it('400 for a host that does not resolve, storing nothing', async () => {
      const u = await createUser(dnsApp);
      const res = await dns.add(u, { domain: 'https://nonexistent.invalid' });
      expectError(res, 400, /^domain: does not point to this service \(.+\)$/);
      expect(await countOwned(t, 'domains', u.id)).toBe(0);
    });

    it('400 for a host resolving elsewhere, saying where it should point and never what DNS answered', async () => {
      const u = await createUser(dnsApp);
      jest.spyOn(dnsApp.app.get(DnsResolver), 'lookup').mockResolvedValue({
        a: ['10.20.30.40', '10.20.30.40', '198.51.100.1'],
        aaaa: ['fd00::1'],
        cname: ['db.corp.internal'],
      });
      const res = await dns.add(u, { domain: `https://${host()}` });
      const message = expectError(
        res,
        400,
        /^domain: does not point to this service \(expected an A\/AAAA record in 203\.0\.113\.7 or a CNAME to edge\.short\.test\)$/,
      );
      for (const answer of ['10.20.30.40', '198.51.100.1', 'fd00::1', 'corp.internal'])
        expect(message).not.toContain(answer);
      expect(await countOwned(t, 'domains', u.id)).toBe(0);
    });

    it('an unverified claim expires after 72 h: another user may then claim the host', async () => {
      const lookup = jest
        .spyOn(dnsApp.app.get(DnsResolver), 'lookup')
        .mockResolvedValue({ a: ['203.0.113.7'], aaaa: [], cname: [] });
      const squatter = await createUser(dnsApp);
      const owner = await createUser(dnsApp);
      const h = host();
      const claim = await dns.add(squatter, { domain: `https://${h}` }).expect(200);
      expect(claim.body.verification).not.toBeNull();
      // within 72 h the claim holds
      await dnsApp.db.query(
        `UPDATE domains SET created_at = now() - interval '71 hours' WHERE id = $1`,
        [claim.body.id],
      );
      expectError(await dns.add(owner, { domain: `https://${h}` }), 409, /already registered/);
      await dnsApp.db.query(
        `UPDATE domains SET created_at = now() - interval '72 hours 1 minute' WHERE id = $1`,
        [claim.body.id],
      );
      const taken = await dns.add(owner, { domain: `https://${h}` }).expect(200);
      const rows = await dnsApp.db.query(`SELECT id, user_id FROM domains WHERE host = $1`, [h]);
      expect(rows).toEqual([{ id: taken.body.id, user_id: owner.id }]);
      // a verified domain never expires
      const verifiedHost = host();
      // (the squatter's claim is gone: its plan has room again)
      const v = await dns.add(squatter, { domain: `https://${verifiedHost}` }).expect(200);
      await dnsApp.db.query(
        `UPDATE domains SET verified_at = now(), created_at = now() - interval '30 days' WHERE id = $1`,
        [v.body.id],
      );
      const late = await createUser(dnsApp);
      expectError(await dns.add(late, { domain: `https://${verifiedHost}` }), 409);
      expect(lookup).toHaveBeenCalled();
    });

    it('accepts a host resolving to a service address or a CNAME of the service host', async () => {
      const u = await createUser(dnsApp, { planId: unlimitedPlan });
      const lookup = jest.spyOn(dnsApp.app.get(DnsResolver), 'lookup');
      lookup.mockResolvedValueOnce({ a: ['203.0.113.7'], aaaa: [], cname: [] });
      const h1 = host();
      await dns.add(u, { domain: `https://${h1}` }).expect(200);
      lookup.mockResolvedValueOnce({ a: [], aaaa: [], cname: ['edge.short.test.'] });
      const h2 = host();
      await dns.add(u, { domain: `https://${h2}` }).expect(200);
      expect(lookup.mock.calls.map((c) => c[0])).toEqual([h1, h2]);
      expect(await countOwned(t, 'domains', u.id)).toBe(2);
    });

    it('lists an unverified domain with its TXT record and where its host must point; verified: no record', async () => {
      const u = await createUser(dnsApp);
      jest
        .spyOn(dnsApp.app.get(DnsResolver), 'lookup')
        .mockResolvedValue({ a: ['203.0.113.7'], aaaa: [], cname: [] });
      const h = host();
      const added = (await dns.add(u, { domain: `https://${h}` }).expect(200)).body;
      const target = { addresses: ['203.0.113.7'], cname: 'edge.short.test' };
      expect((await dns.list(u).expect(200)).body.data.domains).toEqual([
        {
          id: added.id,
          domain: `https://${h}`,
          redirectroot: '',
          redirect404: '',
          verified: false,
          verification: added.verification,
          target,
        },
      ]);
      expect(added.verification).toEqual({
        type: 'TXT',
        name: `_linkverify.${h}`,
        value: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      });
      await dnsApp.db.query(`UPDATE domains SET verified_at = now() WHERE id = $1`, [added.id]);
      expect((await dns.list(u).expect(200)).body.data.domains[0]).toMatchObject({
        verified: true,
        verification: null,
        target,
      });
    });

    it('checks duplicates and the plan before asking DNS', async () => {
      const u = await createUser(dnsApp);
      const lookup = jest
        .spyOn(dnsApp.app.get(DnsResolver), 'lookup')
        .mockResolvedValue({ a: ['203.0.113.7'], aaaa: [], cname: [] });
      const h = host();
      await dns.add(u, { domain: `https://${h}` }).expect(200);
      const other = await createUser(dnsApp);
      expectError(await dns.add(other, { domain: `https://${h}` }), 409);
      expectError(await dns.add(u, { domain: `https://${host()}` }), 403);
      expect(lookup).toHaveBeenCalledTimes(1);
    });
  });
});
