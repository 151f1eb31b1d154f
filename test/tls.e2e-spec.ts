import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { AddressInfo, createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PeerCertificate } from 'node:tls';

import { ClientAddress } from '@app/common';

import { LinkCache } from '../apps/api/src/link-cache/link-cache';
import { LookupBudget } from '../apps/api/src/tls/tls-ask';
import { TlsAskHandler } from '../apps/api/src/tls/tls-ask.handler';
import { createUser, expectError, expectHtmlHeaders, useTestApp } from './support/app';
import { addLink, insertDomain, uniq } from './support/links';

/** PUBLIC_URL of the test apps (test/support/env.ts). */
const MAIN = 'short.test';

describe('automatic HTTPS for branded domains', () => {
  const t = useTestApp();
  const ask = (query: string, host = MAIN) =>
    t.http().get(`/tls/ask${query}`).set('Host', host).redirects(0);

  describe('GET /tls/ask', () => {
    it('200 for a verified branded domain and for the public host, as text/plain, no-store', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      for (const res of [await ask(`?domain=${d.host}`), await ask(`?domain=${MAIN}`)]) {
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.text).toBe('ok\n');
      }
    });

    it('404 for an unverified branded domain and for an unknown host', async () => {
      const u = await createUser(t);
      const unverified = await insertDomain(t, u.id, { verified: false });
      expectHtmlHeaders(await ask(`?domain=${unverified.host}`), 404);
      expectHtmlHeaders(await ask(`?domain=${uniq('n')}.brand.test`), 404);
      expectHtmlHeaders(await ask('?domain=localhost'), 404);
      expectHtmlHeaders(await ask('?domain=127.0.0.1'), 404);
    });

    it('case-insensitive, a trailing dot tolerated, an IDN asked as Unicode or punycode', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      for (const q of [
        d.host.toUpperCase(),
        `${d.host}.`,
        `${d.host.toUpperCase()}.`,
        'SHORT.test.',
      ])
        expect([q, (await ask(`?domain=${encodeURIComponent(q)}`)).status]).toEqual([q, 200]);
      const idn = await insertDomain(t, u.id, { host: `xn--bcher-kva.${uniq('i')}.test` });
      const unicode = idn.host.replace('xn--bcher-kva', 'bücher');
      expect((await ask(`?domain=${encodeURIComponent(unicode)}`)).status).toBe(200);
      expect((await ask(`?domain=${idn.host}`)).status).toBe(200);
      expect((await ask(`?domain=${encodeURIComponent(unicode.toUpperCase())}`)).status).toBe(200);
    });

    it('400 for a missing, empty, repeated or malformed domain', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      for (const q of [
        '',
        '?domain=',
        '?host=short.test',
        `?domain=${d.host}&domain=${d.host}`,
        `?domain=${d.host}:443`,
        `?domain=${encodeURIComponent(`${d.host} x`)}`,
        `?domain=${encodeURIComponent(`https://${d.host}/`)}`,
        `?domain=a..${d.host}`,
        `?domain=${'a'.repeat(300)}`,
      ]) {
        const res = await ask(q);
        expect([q, res.status]).toEqual([q, 400]);
        expect(res.text).toBe('domain: expected one host name\n');
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      }
    });

    it('verification follows the domain: verified later → 200, deleted → 404 (through the cache)', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id, { verified: false });
      expect((await ask(`?domain=${d.host}`)).status).toBe(404);
      await t.db.query('UPDATE domains SET verified_at = now() WHERE id = $1', [d.id]);
      await t.app.get(LinkCache).forget({ hosts: [d.host] });
      expect((await ask(`?domain=${d.host}`)).status).toBe(200);
      await t.db.query('DELETE FROM domains WHERE id = $1', [d.id]);
      await t.app.get(LinkCache).forget({ hosts: [d.host] });
      expect((await ask(`?domain=${d.host}`)).status).toBe(404);
    });

    it('one lookup per host: repeated asks are answered from the cache', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      const unknown = `${uniq('n')}.brand.test`;
      const spy = jest.spyOn(t.app.get(LinkCache), 'resolveHost');
      try {
        for (let i = 0; i < 5; i++) {
          expect((await ask(`?domain=${d.host}`)).status).toBe(200);
          expect((await ask(`?domain=${unknown}`)).status).toBe(404);
        }
        const asked = spy.mock.calls.map((c) => c[0]).filter((h) => h === d.host || h === unknown);
        expect(asked.sort()).toEqual([d.host, unknown].sort());
      } finally {
        spy.mockRestore();
      }
    });

    it('past the lookup budget, an uncached host is a 404 without a lookup; cached answers still come', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      expect((await ask(`?domain=${d.host}`)).status).toBe(200); // now held in memory
      const handler = t.app.get(TlsAskHandler) as unknown as { budget: LookupBudget };
      const saved = handler.budget;
      handler.budget = new LookupBudget(0, 0);
      const spy = jest.spyOn(t.app.get(LinkCache), 'resolveHost');
      try {
        const other = await insertDomain(t, u.id);
        expectHtmlHeaders(await ask(`?domain=${other.host}`), 404);
        expect((await ask(`?domain=${d.host}`)).status).toBe(200);
        expect((await ask(`?domain=${MAIN}`)).status).toBe(200);
        expect(spy.mock.calls.map((c) => c[0])).not.toContain(other.host);
      } finally {
        spy.mockRestore();
        handler.budget = saved;
      }
    });

    it('not served on a branded domain (its ordinary 404), nor under other /tls/ paths; GET and HEAD only', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      expectHtmlHeaders(await ask(`?domain=${d.host}`, d.host), 404);
      expectHtmlHeaders(await ask(`?domain=${MAIN}`, d.host), 404);
      const other = await insertDomain(t, u.id, { notFound: 'https://example.com/404' });
      const res = await ask(`?domain=${MAIN}`, other.host);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://example.com/404');
      expectHtmlHeaders(await t.http().get(`/tls/other?domain=${MAIN}`).set('Host', MAIN), 404);
      expect((await t.http().head(`/tls/ask?domain=${MAIN}`).set('Host', MAIN)).status).toBe(200);
      expectHtmlHeaders(await t.http().post(`/tls/ask?domain=${MAIN}`).set('Host', MAIN), 405);
      // the proxy asks on its own upstream address: any host that is no branded domain
      expect((await ask(`?domain=${d.host}`, 'api:3000')).status).toBe(200);
    });

    it('no short link can be named tls', async () => {
      const u = await createUser(t);
      for (const custom of ['tls', 'TLS', 'Tls']) {
        const res = await t.http().post('/api/url/add').set(u.auth).send({
          url: 'https://example.com/',
          custom,
        });
        expectError(res, 400, /^custom: is reserved$/);
      }
    });
  });

  describe('through Caddy (on-demand TLS, internal CA)', () => {
    let caddy: ChildProcess | undefined;
    let dir: string;
    let httpsPort: number;
    let output = '';

    beforeAll(async () => {
      const probe = spawnSync('caddy', ['version'], { encoding: 'utf8' });
      if (probe.error || probe.status !== 0)
        throw new Error(
          'caddy is not installed: apt-get install -y caddy (the Debian package; .ci/run installs it)',
        );
      if (!t.server.listening) await new Promise<void>((r) => t.server.listen(0, '127.0.0.1', r));
      const apiPort = (t.server.address() as AddressInfo).port;
      const [httpPort, tlsPort] = [await freePort(), await freePort()];
      httpsPort = tlsPort;
      dir = mkdtempSync(join(tmpdir(), 'caddy-'));
      const file = join(dir, 'Caddyfile');
      writeFileSync(
        file,
        `{
	admin off
	http_port ${httpPort}
	https_port ${httpsPort}
	skip_install_trust
	storage file_system {
		root ${join(dir, 'data')}
	}
	on_demand_tls {
		ask http://127.0.0.1:${apiPort}/tls/ask
	}
}

https:// {
	tls internal {
		on_demand
	}
	reverse_proxy 127.0.0.1:${apiPort}
}
`,
      );
      caddy = spawn('caddy', ['run', '--config', file, '--adapter', 'caddyfile'], {
        env: {
          ...process.env,
          HOME: dir,
          XDG_DATA_HOME: join(dir, 'data'),
          XDG_CONFIG_HOME: join(dir, 'config'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      caddy.stdout?.on('data', (b: Buffer) => (output += b.toString()));
      caddy.stderr?.on('data', (b: Buffer) => (output += b.toString()));
      await waitForPort(httpsPort, caddy, () => output);
    }, 20_000);

    afterAll(async () => {
      if (caddy && caddy.exitCode === null) {
        const exited = new Promise((r) => caddy!.once('exit', r));
        caddy.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 3000)))]);
        clearTimeout(timer);
        if (caddy.exitCode === null) caddy.kill('SIGKILL');
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('a verified branded domain gets a certificate for its name, and its short link answers through Caddy', async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      const l = await addLink(t, u, { url: 'https://example.com/through-caddy', domain: d.id });
      const res = await get(httpsPort, d.host, `/${l.alias}`);
      // Caddy's internal CA: the name in the SAN only, issued by its local authority
      expect(res.cert.subjectaltname).toBe(`DNS:${d.host}`);
      expect(res.cert.issuer?.CN).toMatch(/Caddy Local Authority/);
      expect(res.status).toBe(302);
      expect(res.location).toBe('https://example.com/through-caddy');
      // the public host is served too
      const main = await get(httpsPort, MAIN, '/');
      expect(main.cert.subjectaltname).toBe(`DNS:${MAIN}`);
      expect([main.status, main.location]).toEqual([302, '/docs']);
    }, 15_000);

    it("the api sees the visitor's address through Caddy, never an address the visitor claims", async () => {
      const u = await createUser(t);
      const d = await insertDomain(t, u.id);
      const l = await addLink(t, u, { url: 'https://example.com/address', domain: d.id });
      const clients = t.app.get(ClientAddress);
      const seen: Array<{ ip: string; xff: unknown; proto: unknown }> = [];
      const of = clients.of.bind(clients);
      const spy = jest.spyOn(clients, 'of').mockImplementation((req) => {
        const ip = of(req);
        seen.push({
          ip,
          xff: req.headers['x-forwarded-for'],
          proto: req.headers['x-forwarded-proto'],
        });
        return ip;
      });
      try {
        const res = await get(httpsPort, d.host, `/${l.alias}`, {
          'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0',
          'X-Forwarded-For': '203.0.113.9',
        });
        expect(res.status).toBe(302);
        // TRUST_PROXY=loopback (test/support/env.ts): Caddy on 127.0.0.1 is believed, and it
        // replaced the visitor's own X-Forwarded-For with the address it saw
        expect(seen).toContainEqual({ ip: '127.0.0.1', xff: '127.0.0.1', proto: 'https' });
        expect(seen.map((s) => s.ip)).not.toContain('203.0.113.9');
      } finally {
        spy.mockRestore();
      }
    });

    it('the shipped deploy/Caddyfile parses, asks /tls/ask on the api and proxies 80 and 443 to it', () => {
      const adapted = spawnSync(
        'caddy',
        [
          'adapt',
          '--config',
          join(__dirname, '..', 'deploy', 'Caddyfile'),
          '--adapter',
          'caddyfile',
        ],
        { encoding: 'utf8', env: { ...process.env, API_UPSTREAM: 'api:3000' } },
      );
      expect(adapted.status).toBe(0);
      const config = JSON.parse(adapted.stdout);
      expect(config.apps.tls.automation.on_demand.ask).toBe('http://api:3000/tls/ask');
      expect(config.apps.tls.automation.policies).toEqual([{ on_demand: true }]);
      const servers = Object.values(config.apps.http.servers) as Array<{
        listen: string[];
        routes: Array<{ handle: Array<{ handler: string; upstreams: Array<{ dial: string }> }> }>;
      }>;
      expect(servers.map((s) => s.listen).sort()).toEqual([[':443'], [':80']]);
      for (const s of servers)
        expect(s.routes[0].handle[0]).toMatchObject({
          handler: 'reverse_proxy',
          upstreams: [{ dial: 'api:3000' }],
        });
    });

    it("an unknown or unverified host's handshake is refused", async () => {
      const u = await createUser(t);
      const unverified = await insertDomain(t, u.id, { verified: false });
      for (const host of [`${uniq('n')}.brand.test`, unverified.host]) {
        await expect(get(httpsPort, host, '/')).rejects.toThrow(/alert|ECONNRESET|socket/i);
        expect(output).not.toContain(`"identifier":"${host}"`); // Caddy never tried to obtain one
      }
    }, 15_000);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`caddy exited (${proc.exitCode}):\n${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`caddy did not listen on ${port}:\n${log()}`);
}

/** GET over TLS to 127.0.0.1:port with SNI and Host `host`, any certificate accepted (then checked). */
function get(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location?: string; cert: PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        servername: host,
        headers: { ...headers, Host: host },
        rejectUnauthorized: false,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        const cert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, cert }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}
