import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { INestApplicationContext } from '@nestjs/common';

import { ThreatFeedLoader } from '../apps/worker/src/threat-feeds/threat-feed-loader';
import {
  createTestApp,
  createTestWorker,
  createUser,
  expectError,
  TestApp,
  TestUser,
} from './support/app';
import { addLink, uniq } from './support/links';
import { eventually } from './support/stats';

const FIXTURES = join(__dirname, 'fixtures/feeds');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface FeedView {
  name: string;
  source: string;
  format: string | null;
  entries: number;
  skipped: number;
  loadedAt: string | null;
  ageSeconds: number | null;
  attemptedAt: string | null;
  error: string | null;
}

/**
 * docs/trust.md, threat feeds: the worker loads THREAT_FEEDS (URLhaus CSV and text, PhishTank CSV
 * and JSON, OpenPhish; files and URLs) into Redis, every api replica refuses what they flag on
 * create and update (every destination of a link, bulk and import included), a failing feed keeps
 * its previous set, and admins see each feed's state.
 */
describe('threat feeds', () => {
  // each refresh that loads a set re-scans every link of the run's database (other suites' too)
  jest.setTimeout(120_000);
  let a: TestApp;
  /** A second replica sharing Redis and Postgres. */
  let b: TestApp;
  let worker: INestApplicationContext;
  let admin: TestUser;
  let user: TestUser;
  let pro: TestUser;
  let dir: string;
  let server: Server;
  let httpSource: string;
  /** Hosts in the fixtures are `feedtag-…`: made unique for this run. */
  const tag = uniq('ft').toLowerCase();
  const h = (name: string) => `${tag}-${name}.test`;
  const mutable = () => join(dir, 'mutable.txt');

  const feeds = async (app = a): Promise<FeedView[]> =>
    (await app.http().get('/api/admin/feeds').set(admin.auth).expect(200)).body.data;
  const refreshed = async (name: string, since: string) => {
    const loader = worker.get(ThreatFeedLoader);
    await eventually(async () => {
      await loader.refresh(true);
      const feed = (await feeds()).find((f) => f.name === name);
      return !!feed?.attemptedAt && feed.attemptedAt > since;
    }, 20_000);
  };
  const add = (app: TestApp, body: object, u = user) =>
    app.http().post('/api/url/add').set(u.auth).send(body);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'feeds-'));
    for (const f of [
      'urlhaus.csv',
      'urlhaus.txt',
      'phishtank.csv',
      'phishtank.json',
      'openphish.txt',
    ])
      writeFileSync(
        join(dir, f),
        readFileSync(join(FIXTURES, f), 'utf8').replace(/feedtag/gi, tag),
      );
    writeFileSync(mutable(), `https://${h('mut1')}/a\n`);
    const text = readFileSync(join(dir, 'urlhaus.txt'));
    server = createServer((req, res) => {
      if (req.url === '/urlhaus.txt') res.end(text);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    httpSource = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const env = {
      THREAT_FEEDS: [
        `urlhaus=${join(dir, 'urlhaus.csv')}`,
        `uhtext=${httpSource}/urlhaus.txt`,
        `ptcsv=${join(dir, 'phishtank.csv')}`,
        `ptjson=${join(dir, 'phishtank.json')}`,
        join(dir, 'openphish.txt'),
        `mutable=${mutable()}`,
      ].join(','),
    };
    a = await createTestApp(env);
    b = await createTestApp(env);
    worker = await createTestWorker(env);
    admin = await createUser(a, { admin: true });
    user = await createUser(a);
    const plan = await a.db.query(`SELECT id FROM plans WHERE name = 'Pro'`);
    pro = await createUser(a, { planId: plan[0].id });
    // loaded at the worker's start
    await eventually(async () => (await feeds()).every((f) => f.loadedAt !== null), 20_000);
  });
  afterAll(async () => {
    await worker?.close();
    await a?.close();
    await b?.close();
    server?.closeAllConnections();
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists each feed for admins: name, source, detected format, entries, age, no error', async () => {
    const list = await feeds();
    expect(list).toEqual(
      [
        ['urlhaus', join(dir, 'urlhaus.csv'), 'urlhaus-csv', 3],
        ['uhtext', `${httpSource}/…`, 'urlhaus-text', 3],
        ['ptcsv', join(dir, 'phishtank.csv'), 'phishtank-csv', 2],
        ['ptjson', join(dir, 'phishtank.json'), 'phishtank-json', 2],
        ['openphish', join(dir, 'openphish.txt'), 'openphish', 4],
        ['mutable', mutable(), 'openphish', 1],
      ].map(([name, source, format, entries]) => ({
        name,
        source,
        format,
        entries,
        skipped: 0,
        loadedAt: expect.stringMatching(ISO),
        ageSeconds: expect.any(Number),
        attemptedAt: expect.stringMatching(ISO),
        error: null,
      })),
    );
    for (const f of list) expect(Number.isInteger(f.ageSeconds) && f.ageSeconds! >= 0).toBe(true);
    expect(await feeds(b)).toEqual(list.map((f) => ({ ...f, ageSeconds: expect.any(Number) })));
  });

  it('lists a feed not loaded yet with nulls, as documented', async () => {
    // an api whose worker has not loaded its feed yet (none runs for this prefix)
    const early = await createTestApp({ THREAT_FEEDS: `early=${join(dir, 'openphish.txt')}` });
    try {
      const boss = await createUser(early, { admin: true });
      const res = await early.http().get('/api/admin/feeds').set(boss.auth).expect(200);
      expect(res.body.data).toEqual([
        {
          name: 'early',
          source: join(dir, 'openphish.txt'),
          format: null,
          entries: 0,
          skipped: 0,
          loadedAt: null,
          ageSeconds: null,
          attemptedAt: null,
          error: null,
        },
      ]);
    } finally {
      await early.close();
    }
  });

  it('403 for a member, 401 without a key', async () => {
    expectError(await a.http().get('/api/admin/feeds').set(user.auth), 403);
    expectError(await a.http().get('/api/admin/feeds'), 401);
  });

  it('reports each feed in /health/ready (count, age, error flag; no source)', async () => {
    const res = await a.http().get('/health/ready').expect(200);
    expect(res.body.data.feeds).toEqual(
      ['urlhaus', 'uhtext', 'ptcsv', 'ptjson', 'openphish', 'mutable'].map((name) => ({
        name,
        entries: expect.any(Number),
        age: expect.any(Number),
        error: false,
      })),
    );
  });

  it('refuses a URL of each format on url/add, on both replicas, in every spelling', async () => {
    const cases: Array<[string, string]> = [
      [`http://${h('uh1')}/bins/x86`, 'malware by urlhaus'],
      [`HTTPS://${h('UH1').toUpperCase()}./bins/%78%386#frag`, 'malware by urlhaus'],
      [`https://${h('uh2')}:8443/Download/Payload.exe?id=7`, 'malware by urlhaus'],
      ['http://198.51.100.23/i', 'malware by urlhaus'],
      [`http://${h('ut1')}/sh`, 'malware by uhtext'],
      [`https://${h('pt1')}/login.php?acct=1`, 'phishing by ptcsv'],
      [`http://${h('pt2')}/secure,update/`, 'phishing by ptcsv'],
      [`https://${h('pj1')}/verify/`, 'phishing by ptjson'],
      [`http://bücher.${h('pj2')}/Account`, 'phishing by ptjson'],
      [`https://${h('op1')}/wp-admin/signin/`, 'phishing by openphish'],
      [`https://${h('mut1')}/a`, 'phishing by mutable'],
    ];
    for (const app of [a, b])
      for (const [url, flag] of cases)
        expect(expectError(await add(app, { url }), 400)).toBe(`url: flagged as ${flag}`);
  });

  it('a host entry flags the host and its subdomains; a URL entry only that URL (no prefix)', async () => {
    for (const url of [
      `https://${h('ophost')}/`,
      `http://${h('ophost')}/any/path?q=1`,
      `https://deep.sub.${h('ophost')}/x`,
      `https://${h('uthost')}./`,
    ])
      expect(expectError(await add(a, { url }), 400)).toMatch(/^url: flagged as /);
    for (const url of [
      `http://${h('uh1')}/bins/x86extra`,
      `http://${h('uh1')}/bins/x86/`,
      `http://${h('uh1')}/bins`,
      `http://${h('uh1')}/`,
      `https://${h('uh2')}/Download/Payload.exe?id=7`,
      `https://${h('uh2')}:8443/Download/Payload.exe?id=77`,
      `https://${h('pt1')}/login.php`,
      `https://sub.${h('op1')}/wp-admin/signin/`,
      `https://not${h('ophost')}/`,
      `https://${h('ophost')}.example/`,
    ])
      expect((await add(a, { url })).status).toBe(200);
  });

  it('refuses a flagged target in targeting rules, the expiration redirect and deep links, on add and update', async () => {
    const bad = `https://${h('op2')}/index.html`;
    const flag = 'flagged as phishing by openphish';
    const link = await addLink(a, pro, { url: 'https://example.com/fine' });
    const bodies: Array<[object, string]> = [
      [{ url: bad }, 'url'],
      [
        { url: 'https://example.com/', geotarget: [{ location: 'US', link: bad }] },
        'geotarget[0].link',
      ],
      [{ url: 'https://example.com/', expirationredirect: bad }, 'expirationredirect'],
      [{ url: 'https://example.com/', fallbackurl: bad }, 'fallbackurl'],
      [{ url: 'https://example.com/', deeplink: { google: bad } }, 'deeplink.google'],
      [
        { url: 'https://example.com/', deeplink: { apple: `myapp://sub.${h('ophost')}/x` } },
        'deeplink.apple',
      ],
      [
        {
          url: 'https://example.com/',
          deeplink: {
            google: `intent://open#Intent;scheme=myapp;package=com.example;S.browser_fallback_url=${encodeURIComponent(bad)};end`,
          },
        },
        'deeplink.google',
      ],
    ];
    for (const [body, field] of bodies) {
      const message = `${field}: ${field.startsWith('deeplink.apple') ? 'flagged as phishing by openphish' : flag}`;
      expect(expectError(await add(a, body, pro), 400)).toBe(message);
      expect(
        expectError(await b.http().put(`/api/url/${link.id}/update`).set(pro.auth).send(body), 400),
      ).toBe(message);
    }
    // the link is as it was
    const [row] = await a.db.query(`SELECT url FROM links WHERE id = $1`, [link.id]);
    expect(row.url).toBe('https://example.com/fine');
  });

  it('refuses a flagged item of url/bulk in its place, and a flagged row of an import', async () => {
    const bad = `https://${h('pj1')}/verify/`;
    const res = await a
      .http()
      .post('/api/url/bulk')
      .set(pro.auth)
      .send({ urls: [{ url: 'https://example.com/ok' }, { url: bad }] })
      .expect(200);
    expect(res.body.data[1]).toEqual({ error: 1, message: 'url: flagged as phishing by ptjson' });
    expect(res.body.data[0]).toMatchObject({
      id: expect.any(Number),
      shorturl: expect.any(String),
    });

    const csv = ['url', 'https://example.com/imported', bad].join('\n');
    const started = await a
      .http()
      .post('/api/import')
      .set(pro.auth)
      .set('Content-Type', 'text/csv')
      .send(csv)
      .expect(200);
    let data: {
      status: string;
      errors: Array<{ line: number; message: string }>;
      created: number;
    } = { status: '', errors: [], created: 0 };
    await eventually(async () => {
      data = (await a.http().get(`/api/import/${started.body.id}`).set(pro.auth)).body.data;
      return data.status === 'done' || data.status === 'failed';
    }, 30_000);
    expect(data.created).toBe(1);
    expect(data.errors).toEqual([{ line: 3, message: 'url: flagged as phishing by ptjson' }]);
  });

  it('a refresh reaches both replicas; a failing feed keeps its set and shows its error', async () => {
    const before = (await feeds()).find((f) => f.name === 'mutable')!;
    writeFileSync(mutable(), `# changed\nhttps://${h('mut2')}/b\n${h('muthost')}\n`);
    await refreshed('mutable', before.attemptedAt!);
    for (const app of [a, b]) {
      expect(expectError(await add(app, { url: `https://${h('mut2')}/b` }), 400)).toBe(
        'url: flagged as phishing by mutable',
      );
      expect(expectError(await add(app, { url: `https://x.${h('muthost')}/` }), 400)).toBe(
        'url: flagged as phishing by mutable',
      );
      expect((await add(app, { url: `https://${h('mut1')}/a` })).status).toBe(200);
    }
    const loaded = (await feeds()).find((f) => f.name === 'mutable')!;
    expect(loaded).toMatchObject({ entries: 2, error: null });

    // nothing understood: the previous set stays, the error is shown
    writeFileSync(mutable(), 'this is not a feed\nneither is this\n');
    await refreshed('mutable', loaded.attemptedAt!);
    let state = (await feeds()).find((f) => f.name === 'mutable')!;
    expect(state).toMatchObject({
      entries: 2,
      loadedAt: loaded.loadedAt,
      format: 'openphish',
      error: expect.stringMatching(/^no entry understood/),
    });
    expect(state.attemptedAt! > loaded.attemptedAt!).toBe(true);
    expect(expectError(await add(b, { url: `https://${h('mut2')}/b` }), 400)).toBe(
      'url: flagged as phishing by mutable',
    );
    const health = await a.http().get('/health/ready').expect(200);
    expect(health.body.data.feeds.find((f: { name: string }) => f.name === 'mutable')).toEqual({
      name: 'mutable',
      entries: 2,
      age: expect.any(Number),
      error: true,
    });

    // gone: the same
    unlinkSync(mutable());
    await refreshed('mutable', state.attemptedAt!);
    state = (await feeds()).find((f) => f.name === 'mutable')!;
    expect(state).toMatchObject({ entries: 2, error: expect.stringMatching(/ENOENT/) });
    expect(expectError(await add(a, { url: `https://${h('mut2')}/b` }), 400)).toBe(
      'url: flagged as phishing by mutable',
    );

    // back: the error clears
    writeFileSync(mutable(), `https://${h('mut3')}/c\n`);
    await refreshed('mutable', state.attemptedAt!);
    expect((await feeds()).find((f) => f.name === 'mutable')).toMatchObject({
      entries: 1,
      error: null,
    });
    expect((await add(a, { url: `https://${h('mut2')}/b` })).status).toBe(200);
  });
});
