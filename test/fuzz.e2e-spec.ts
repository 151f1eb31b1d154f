import fc from 'fast-check';
import request from 'supertest';

import { isoDay } from '@app/stats';

import { addKey, addMember, NamedTestKey } from './support/access';
import { createTestApp, createUser, TestApp, TestUser } from './support/app';
import {
  anyDateText,
  deeplyNested,
  hostileBody,
  hostileId,
  hostileQuery,
  hostileValue,
  hostileWorkspace,
  LEAK,
  LONE_SURROGATES,
  loneSurrogateString,
  nestingDepth,
  workspaceNamed,
} from './support/fuzz';
import { liveAnswer } from './support/live';
import { insertLink, insertQr } from './support/resources';

/** `t.http()[method]`, bound (the agent's verbs read `this`). */
function call(t: TestApp, method: 'get' | 'post' | 'put' | 'delete') {
  const agent = t.http();
  return agent[method].bind(agent);
}

/** Live streams (Server-Sent Events) never end: their calls are answered at the stream's first line. */
const isLive = (template: string) => template.endsWith('/live');

/** A live route's call, answered as supertest would (a stream opened: 200 and `{}`, then closed). */
async function liveCall(
  t: TestApp,
  path: string,
  query: Record<string, string | string[]>,
  headers: Record<string, string | string[]>,
): Promise<request.Response> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query))
    for (const one of Array.isArray(v) ? v : [v]) qs.append(k, one);
  const search = qs.toString();
  return (await liveAnswer(
    t.server,
    search ? `${path}?${search}` : path,
    headers as Record<string, string>,
  )) as unknown as request.Response;
}

/** A URL cannot carry a lone surrogate (those are fuzzed in bodies): replaced by U+FFFD. */
const wellFormed = (s: string) => s.replace(/[\uD800-\uDFFF]/gu, '\uFFFD');

/**
 * Property-based hostile input against every route the OpenAPI document lists (so a new route is
 * fuzzed the day it is added) and against the public short-link paths. Each request must get a
 * documented success or a 4xx `{error: 1, message}`: never a 500, a stack trace or SQL text, and a
 * rejected request must leave every table unchanged. Requests carry hostile `X-Workspace` values
 * too (the caller's own workspace, one it is a member of, others, malformed ones, the header
 * twice). CI runs a fixed seed; `npm run fuzz` runs more (FUZZ_RUNS, FUZZ_SEED).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
/** Each property walks every route: minutes on a busy machine, more with FUZZ_RUNS. */
const FUZZ_TIMEOUT = 60_000 + RUNS * 20_000;

/**
 * The tables a rejected request must leave unchanged. The large ones (earlier suites leave
 * hundreds of thousands of links and their audit entries behind) are read for the fuzz users'
 * rows only, through the owner's index: scanning them whole made each check cost ~100 ms and the
 * suite overrun its time when jest ran it after those suites. Another user's rows are the
 * isolation suite's.
 */
const TABLES: Array<string | { table: string; owner: string }> = [
  'users',
  'plans',
  'login_tokens',
  'domains',
  'campaigns',
  'channels',
  'channel_items',
  'pixels',
  'overlays',
  'splash_pages',
  { table: 'links', owner: 'user_id' },
  'link_pixels',
  { table: 'qr_codes', owner: 'user_id' },
  'blocklist',
  'bio_pages',
  'link_flags',
  'workspace_members',
  'api_keys',
  { table: 'audit_log', owner: 'workspace_id' },
];

interface Route {
  method: 'get' | 'post' | 'put' | 'delete';
  template: string;
  params: string[];
  query: string[];
  fields: string[];
}

type Schema = { $ref?: string; properties?: Record<string, unknown>; allOf?: Schema[] };

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

function routesFrom(doc: {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}): Route[] {
  const schemas = doc.components?.schemas ?? {};
  const fieldsOf = (s: Schema | undefined): string[] => {
    if (!s) return [];
    if (s.$ref) return fieldsOf(schemas[s.$ref.split('/').pop() as string]);
    return [...Object.keys(s.properties ?? {}), ...(s.allOf ?? []).flatMap(fieldsOf)];
  };
  const routes: Route[] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      const parameters = op.parameters ?? [];
      routes.push({
        method: method as Route['method'],
        template,
        params: [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        fields: fieldsOf(op.requestBody?.content?.['application/json']?.schema),
      });
    }
  }
  return routes;
}

describe('fuzz: hostile input on every route', () => {
  let t: TestApp;
  let user: TestUser;
  let admin: TestUser;
  /** A workspace `user` is an editor of. */
  let team: TestUser;
  let routes: Route[];
  const tally = { requests: 0, rejected: 0, accepted: 0 };

  /**
   * What a write would change, table by table: the row count and the newest row version's
   * transaction id (an insert, an update — even one that rewrites the same values — and a
   * delete all move one of them). A scan without reading the rows' contents: a digest of every
   * row made each check cost seconds once earlier suites had left 200 000 links behind.
   */
  const checksum = async (): Promise<string> => {
    const parts = TABLES.map((entry) => {
      const { table, owner } = typeof entry === 'string' ? { table: entry, owner: null } : entry;
      const where = owner ? ` WHERE ${owner} = ANY($1::int[])` : '';
      return `(SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM ${table}${where})`;
    });
    const [row] = await t.db.query(`SELECT concat_ws('|', ${parts.join(', ')}) AS sum`, [
      [user.id, admin.id, team.id],
    ]);
    return row.sum;
  };

  const check = (res: request.Response, what: string) => {
    tally.requests += 1;
    const body = JSON.stringify(res.body ?? res.text ?? '');
    expect([what, res.status < 500]).toEqual([what, true]);
    expect([what, LEAK.test(body) ? body.slice(0, 300) : 'clean']).toEqual([what, 'clean']);
    if (
      res.status >= 400 &&
      !what.startsWith('HEAD ') &&
      (res.headers['content-type'] ?? '').includes('json')
    ) {
      expect([what, Object.keys(res.body).sort(), res.body.error]).toEqual([
        what,
        ['error', 'message'],
        1,
      ]);
      expect(typeof res.body.message).toBe('string');
    }
  };

  beforeAll(async () => {
    // failures the guard refuses (a bad X-Workspace among them) count per client address: a
    // limit no run reaches, so that every answer is the route's or the guard's, not a 429
    t = await createTestApp({ RATE_LIMIT: '1000000', LIVE_STREAMS_PER_KEY: '100' });
    user = await createUser(t);
    admin = await createUser(t, { admin: true });
    team = await createUser(t);
    await addMember(t, team.id, user.id, 'editor');
    const doc = (await t.http().get('/docs-json')).body;
    routes = routesFrom(doc).filter(
      (r) =>
        (r.template.startsWith('/api/') || r.template.startsWith('/auth/')) &&
        // an accepted import runs as a background job that writes links after the request has
        // answered, so "rejected requests change nothing" could not be checked around it; its
        // refusals (400, 413) are covered by test/import.e2e-spec.ts
        !(r.method === 'post' && r.template === '/api/import'),
    );
  });
  afterAll(async () => {
    console.log(
      `fuzz: ${tally.requests} requests on ${routes.length} routes (${tally.rejected} rejected, ${tally.accepted} accepted), seed ${SEED}`,
    );
    await t.close();
  });

  it('lists the documented routes', () => {
    expect(routes.length).toBeGreaterThanOrEqual(2);
  });

  it('every /api and /auth route answers hostile input with a 4xx envelope or a documented success', async () => {
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            ids: fc.array(hostileId, {
              minLength: route.params.length,
              maxLength: route.params.length,
            }),
            query: hostileQuery(route.query),
            body: hostileBody(route.fields),
            who: fc.constantFrom('user', 'user', 'admin', 'none'),
            workspace: fc.option(hostileWorkspace([user.id, admin.id, team.id]), {
              nil: undefined,
              freq: 3,
            }),
          }),
          async ({ ids, query, body, who, workspace }) => {
            let path = route.template;
            route.params.forEach((p, i) => (path = path.replace(`{${p}}`, ids[i])));
            const before = await checksum();
            if (isLive(route.template)) {
              const headers: Record<string, string | string[]> = {};
              if (who !== 'none') Object.assign(headers, (who === 'admin' ? admin : user).auth);
              if (workspace !== undefined) headers['X-Workspace'] = workspace;
              const res = await liveCall(t, path, query, headers);
              check(
                res,
                `GET ${path} (live) X-Workspace ${JSON.stringify(workspace)?.slice(0, 40)}`,
              );
              tally[res.status >= 400 ? 'rejected' : 'accepted'] += 1;
              expect([path, await checksum()]).toEqual([path, before]);
              return;
            }
            let req = t.http()[route.method](path).query(query);
            if (who !== 'none') req = req.set((who === 'admin' ? admin : user).auth);
            // a list: the header sent once per item (supertest types only Cookie as a list)
            if (workspace !== undefined) req = req.set('X-Workspace', workspace as string);
            if (route.method === 'post' || route.method === 'put') {
              req = req.set('Content-Type', 'application/json');
              req =
                body.raw !== undefined ? req.send(body.raw) : req.send(JSON.stringify(body.json));
            }
            const res = await req;
            const what = `${route.method.toUpperCase()} ${path} ${JSON.stringify(body).slice(0, 200)} X-Workspace ${JSON.stringify(workspace)?.slice(0, 40)}`;
            check(res, what);
            if (res.status >= 400) {
              tally.rejected += 1;
              expect([what, await checksum()]).toEqual([what, before]);
            } else {
              tally.accepted += 1;
              // a key rotation that went through: the caller (or the admin's target) has a new key
              if (typeof res.body?.apikey === 'string')
                for (const u of [user, admin])
                  if (u.id === res.body.id)
                    u.auth = { Authorization: `Bearer ${res.body.apikey as string}` };
            }
          },
        ),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
    // every route of the OpenAPI document, RUNS requests each, two table checksums per request
  }, 300_000);

  it(
    "a hostile X-Workspace on every /api route: 400 naming it, 404 for a workspace not the caller's, else the route's own answer",
    async () => {
      // callers of their own: a member of one workspace, and a named key made for it
      const owner = await createUser(t);
      const member = await createUser(t);
      await addMember(t, owner.id, member.id, 'viewer');
      const key: NamedTestKey = await addKey(t, {
        workspace: owner.id,
        user: member.id,
        scopes: ['*'],
      });
      // `POST /api/report` needs no key: no workspace to name
      const secured = routes.filter(
        (r) => r.template.startsWith('/api/') && r.template !== '/api/report',
      );
      for (const route of secured) {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              ids: fc.array(hostileId, {
                minLength: route.params.length,
                maxLength: route.params.length,
              }),
              who: fc.constantFrom('member', 'key'),
              workspace: hostileWorkspace([owner.id, member.id, admin.id]),
            }),
            async ({ ids, who, workspace }) => {
              let path = route.template;
              route.params.forEach((p, i) => (path = path.replace(`{${p}}`, ids[i])));
              let req = call(
                t,
                route.method,
              )(path)
                .set(who === 'key' ? key.auth : member.auth)
                // a list: the header sent once per item (supertest types only Cookie as a list)
                .set('X-Workspace', workspace as string);
              if (route.method === 'post' || route.method === 'put')
                req = req.set('Content-Type', 'application/json').send('{}');
              const res = isLive(route.template)
                ? await liveCall(
                    t,
                    path,
                    {},
                    { ...(who === 'key' ? key.auth : member.auth), 'X-Workspace': workspace },
                  )
                : await req;
              const what = `${who} ${route.method.toUpperCase()} ${path} X-Workspace ${JSON.stringify(workspace).slice(0, 60)}`;
              check(res, what);
              const named = workspaceNamed(workspace);
              // a member acts in its own workspace and the owner's; the key in the owner's only
              const mayAct = who === 'key' ? [owner.id] : [owner.id, member.id];
              if (Number.isNaN(named))
                expect([what, res.status, res.body.message]).toEqual([
                  what,
                  400,
                  'X-Workspace must be the id of a workspace (a positive integer)',
                ]);
              else if (!mayAct.includes(named))
                expect([what, res.status, res.body.message]).toEqual([
                  what,
                  404,
                  'Workspace not found (X-Workspace)',
                ]);
              else
                expect([what, /X-Workspace/.test(String(res.body?.message))]).toEqual([
                  what,
                  false,
                ]);
            },
          ),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
      }
    },
    FUZZ_TIMEOUT,
  );

  it(
    'a lone UTF-16 surrogate in any body field is a 400 naming the field, on every route',
    async () => {
      const withBody = routes.filter((r) => r.fields.length);
      expect(withBody.length).toBeGreaterThan(10);
      for (const route of withBody) {
        const path = route.template.replace(/\{\w+\}/g, '1');
        for (const field of route.fields) {
          for (const [i, lone] of LONE_SURROGATES.entries()) {
            const value = i % 2 ? `user${lone}@example.com` : lone;
            const res = await call(
              t,
              route.method,
            )(path)
              .set(user.auth)
              .set('Content-Type', 'application/json')
              .send(JSON.stringify({ [field]: value }));
            const what = `${route.method.toUpperCase()} ${path} ${field}=${JSON.stringify(value)}`;
            check(res, what);
            expect([what, res.status, res.body.message]).toEqual([
              what,
              400,
              `${field}: must be valid Unicode text (lone UTF-16 surrogate)`,
            ]);
          }
        }
      }
    },
    FUZZ_TIMEOUT,
  );

  it(
    'lone surrogates anywhere in a body and nesting up to 10 000 levels never get a 5xx',
    async () => {
      const withBody = routes.filter((r) => r.fields.length);
      for (const route of withBody) {
        await fc.assert(
          fc.asyncProperty(
            fc.record({
              field: fc.constantFrom(...route.fields),
              depth: nestingDepth,
              lone: loneSurrogateString,
              shape: fc.constantFrom('nested', 'nested-lone', 'lone-in-array', 'lone-key'),
            }),
            async ({ field, depth, lone, shape }) => {
              const path = route.template.replace(/\{\w+\}/g, '1');
              const loneJson = JSON.stringify(lone);
              const raw =
                shape === 'nested'
                  ? deeplyNested(field, depth)
                  : shape === 'nested-lone'
                    ? deeplyNested(field, depth, loneJson)
                    : shape === 'lone-in-array'
                      ? JSON.stringify({ [field]: ['ok', lone] })
                      : JSON.stringify({ [lone]: 1 });
              const before = await checksum();
              const res = await call(
                t,
                route.method,
              )(path)
                .set(user.auth)
                .set('Content-Type', 'application/json')
                .send(raw);
              const what = `${route.method.toUpperCase()} ${path} ${shape} ${field} depth ${depth}`;
              check(res, what);
              if (res.status >= 400) expect([what, await checksum()]).toEqual([what, before]);
              if (shape !== 'nested' || depth >= 32) {
                expect([what, res.status]).toEqual([what, 400]);
                if (shape !== 'lone-key')
                  expect([what, res.body.message]).toEqual([
                    what,
                    expect.stringMatching(new RegExp(`^${field}\\b`)),
                  ]);
              }
            },
          ),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
      }
    },
    FUZZ_TIMEOUT,
  );

  it(
    'from / to of every statistics route, across the whole YYYY-MM-DD space: 200, or a prompt 400 naming the field',
    async () => {
      // the audit log's from / to (days or date-times, no bounds) have a property of their own
      const ranged = routes.filter(
        (r) => r.method === 'get' && r.query.includes('from') && r.template !== '/api/audit',
      );
      expect(ranged.map((r) => r.template).sort()).toEqual([
        '/api/qr/{id}/stats',
        '/api/stats',
        '/api/stats/reach',
        '/api/url/{id}/stats',
        '/api/url/{id}/stats/export',
      ]);
      // its own owner with the export feature, and a link and a QR code of theirs
      const [pro] = await t.db.query(`SELECT id FROM plans WHERE NOT free ORDER BY id LIMIT 1`);
      const owner = await createUser(t, { planId: pro.id, planType: 'lifetime' });
      const link = await insertLink(t, owner.id);
      const qr = await insertQr(t, owner.id);
      const last = Number(isoDay(Date.now()).slice(0, 4)) + 1;
      const real = (s: string) => {
        const [y, m, d] = s.split('-').map(Number);
        const at = new Date(0);
        at.setUTCFullYear(y, m - 1, d);
        return /^\d{4}-\d{2}-\d{2}$/.test(s) && at.toISOString().slice(0, 10) === s;
      };
      const inBounds = (s: string) => real(s) && s >= '2000-01-01' && s <= `${last}-12-31`;
      for (const route of ranged) {
        const id = route.template.startsWith('/api/qr/') ? qr.id : link.id;
        // reach: a set of the owner's links too
        const reach = route.template === '/api/stats/reach';
        const path = reach
          ? `/api/stats/reach?links=${link.id}`
          : route.template.replace('{id}', String(id));
        await fc.assert(
          fc.asyncProperty(
            fc.record(
              {
                from: anyDateText,
                to: anyDateText,
                interval: fc.constantFrom('day', 'week', 'month', 'hour'),
              },
              { requiredKeys: [] },
            ),
            async (asked) => {
              // reach takes no interval (a 400 naming it): its from / to alone
              const query = reach ? { ...asked, interval: undefined } : asked;
              if (reach) delete query.interval;
              const what = `GET ${path} ${JSON.stringify(query)}`;
              const started = Date.now();
              const res = await t.http().get(path).query(query).set(owner.auth);
              const ms = Date.now() - started;
              check(res, what);
              expect([what, ms < 2000]).toEqual([what, true]);
              expect([what, [200, 400]]).toEqual([what, expect.arrayContaining([res.status])]);
              if (res.status === 400)
                expect([what, res.body.message]).toEqual([
                  what,
                  // interval=hour over more than 7 days is refused naming interval
                  expect.stringMatching(
                    query.interval === 'hour' ? /^(from|to|interval): / : /^(from|to): /,
                  ),
                ]);
              // a day that is not a real day of 2000 to next year is refused, and named
              for (const field of ['from', 'to'] as const) {
                const value = query[field];
                if (value !== undefined && !inBounds(value))
                  expect([what, res.status, res.body.message]).toEqual([
                    what,
                    400,
                    expect.stringMatching(new RegExp(`^(from|to): `)),
                  ]);
              }
            },
          ),
          { seed: SEED, numRuns: RUNS * 10, endOnFailure: true },
        );
      }
    },
    FUZZ_TIMEOUT,
  );

  it(
    'from / to of the audit log, any date text: 200, or a prompt 400 naming the field; a day the calendar has not is refused',
    async () => {
      const owner = await createUser(t);
      const real = (s: string) => {
        const [y, m, d] = s.split('-').map(Number);
        const at = new Date(0);
        at.setUTCFullYear(y, m - 1, d);
        return at.toISOString().slice(0, 10) === s && y >= 100;
      };
      await fc.assert(
        fc.asyncProperty(
          fc.record({ from: anyDateText, to: anyDateText }, { requiredKeys: [] }),
          async (query) => {
            const what = `GET /api/audit ${JSON.stringify(query)}`;
            const started = Date.now();
            const res = await t.http().get('/api/audit').query(query).set(owner.auth);
            check(res, what);
            expect([what, Date.now() - started < 2000]).toEqual([what, true]);
            expect([what, [200, 400]]).toEqual([what, expect.arrayContaining([res.status])]);
            if (res.status === 400)
              expect([what, res.body.message]).toEqual([
                what,
                expect.stringMatching(/^(from|to): /),
              ]);
            for (const field of ['from', 'to'] as const) {
              const value = query[field];
              if (value !== undefined && !real(value))
                expect([what, res.status]).toEqual([what, 400]);
            }
          },
        ),
        { seed: SEED, numRuns: RUNS * 10, endOnFailure: true },
      );
    },
    FUZZ_TIMEOUT,
  );

  it('public short-link paths never fail with a 5xx or leak internals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          prefix: fc.constantFrom(
            '/',
            '/q/',
            '/r/',
            '/u/',
            '/tls/ask?domain=',
            '/auth/login/',
            '/api/',
            '/health/',
          ),
          tail: fc.oneof(
            hostileId,
            hostileValue.map((v) =>
              encodeURIComponent(
                wellFormed(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'x')),
              ).slice(0, 300),
            ),
          ),
          method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'),
          host: fc.constantFrom(
            'short.test',
            'unknown.example',
            'a'.repeat(300),
            '127.0.0.1:1',
            '',
          ),
          body: fc.string({ maxLength: 200 }),
        }),
        async ({ prefix, tail, method, host, body }) => {
          const verb = method.toLowerCase() as 'get';
          const client = t.http();
          const req = client[verb](`${prefix}${tail}`).set('Host', host || 'short.test');
          const res =
            method === 'POST' || method === 'PUT' ? await req.type('form').send(body) : await req;
          check(res, `${method} ${prefix}${tail}`);
        },
      ),
      { seed: SEED, numRuns: RUNS * 10, endOnFailure: true },
    );
  });

  it('a bio page answers hostile queries and methods with its page, a redirect or a 4xx', async () => {
    // its own owner, so that the route fuzzing above can never have deleted it
    const owner = await createUser(t);
    const res = await t
      .http()
      .post('/api/bio/add')
      .set(owner.auth)
      .send({
        name: 'fuzzed',
        title: '<b>fuzz</b>',
        links: [{ title: 'one', url: 'https://one.example/' }],
        socials: { x: 'https://x.example/me' },
      })
      .expect(200);
    const alias = (res.body.url as string).split('/').pop() as string;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          query: fc.oneof(
            fc.constantFrom(
              'go=0',
              'go=1',
              'go=x',
              'go=99999999999999999999',
              'go=constructor',
              'go=',
              'go=0&go=1',
              'go=%00',
              'go=-1',
            ),
            hostileValue.map(
              (v) =>
                `go=${encodeURIComponent(wellFormed(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'x'))).slice(0, 300)}`,
            ),
          ),
          method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT'),
          body: fc.string({ maxLength: 200 }),
        }),
        async ({ query, method, body }) => {
          const verb = method.toLowerCase() as 'get';
          const req = t.http()[verb](`/${alias}?${query}`).set('Host', 'short.test').redirects(0);
          const answer =
            method === 'POST' || method === 'PUT' ? await req.type('form').send(body) : await req;
          check(answer, `${method} /${alias}?${query}`);
          expect([query, [200, 302, 404, 405].includes(answer.status)]).toEqual([query, true]);
          if (answer.status === 302)
            expect(['https://one.example/', 'https://x.example/me']).toContain(
              answer.headers.location,
            );
        },
      ),
      { seed: SEED, numRuns: RUNS * 5, endOnFailure: true },
    );
  });
});
