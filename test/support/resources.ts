import { randomBytes } from 'node:crypto';

import { call, expectError, TestApp, TestUser } from './app';

/** A unique lower-case token for aliases, host names and slugs. */
export function uniq(prefix = 'x'): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/**
 * Inserts a `links` row directly (the links API belongs to another module).
 * Returns its id and alias.
 */
export async function insertLink(
  t: TestApp,
  userId: number,
  opts: {
    kind?: 'link' | 'bio' | 'qr';
    alias?: string;
    url?: string;
    title?: string;
    domainId?: number | null;
  } = {},
): Promise<{ id: number; alias: string }> {
  const alias = opts.alias ?? uniq('a');
  const [row] = await t.db.query(
    `INSERT INTO links (user_id, kind, alias, url, title, domain_id) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      userId,
      opts.kind ?? 'link',
      alias,
      opts.url ?? `https://target.example/${alias}`,
      opts.title ?? '',
      opts.domainId ?? null,
    ],
  );
  return { id: row.id, alias };
}

/** Inserts a QR code (its `links` row of kind qr, then the `qr_codes` row). */
export async function insertQr(
  t: TestApp,
  userId: number,
  opts: { name?: string } = {},
): Promise<{ id: number; linkId: number; alias: string }> {
  const link = await insertLink(t, userId, { kind: 'qr', url: 'https://qr-target.example/' });
  const [row] = await t.db.query(
    `INSERT INTO qr_codes (user_id, link_id, type, data, name) VALUES ($1, $2, 'link', $3, $4) RETURNING id`,
    [userId, link.id, JSON.stringify('https://qr-target.example/'), opts.name ?? ''],
  );
  return { id: row.id, linkId: link.id, alias: link.alias };
}

/** Rows of `table` owned by the user (to prove rejected requests changed nothing). */
export async function countOwned(t: TestApp, table: string, userId: number): Promise<number> {
  const [row] = await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, [
    userId,
  ]);
  return row.n;
}

/**
 * The pagination of a list route (docs/api-conventions.md), for a user owning exactly `ids` (in
 * creation order): newest first, counters, limit clamp, a page past the end, and 400 for bad
 * limit / page.
 */
export async function expectPagination(
  t: TestApp,
  user: TestUser,
  path: string,
  key: string,
  ids: number[],
): Promise<void> {
  expect(ids.length).toBe(3);
  const newestFirst = [...ids].reverse();
  const page = async (query: string) => {
    const res = await t.http().get(`${path}${query}`).set(user.auth).expect(200);
    expect(res.body.error).toBe('0');
    expect(Object.keys(res.body.data).sort()).toEqual(
      ['currentpage', 'maxpage', 'nextpage', 'perpage', 'result', key].sort(),
    );
    return res.body.data;
  };
  const ids_ = (d: Record<string, Array<{ id: number }>>) => d[key].map((i) => i.id);

  const counters = (perpage: number, currentpage: number, nextpage: number, maxpage: number) => ({
    result: 3,
    perpage,
    currentpage,
    nextpage,
    maxpage,
  });

  const pages: Array<[query: string, expected: object, ids: number[]]> = [
    ['', counters(15, 1, 0, 1), newestFirst],
    ['?limit=2', counters(2, 1, 2, 2), newestFirst.slice(0, 2)],
    ['?limit=2&page=2', counters(2, 2, 0, 2), newestFirst.slice(2)],
  ];
  for (const [query, expected, ids] of pages) {
    const data = await page(query);
    expect(data).toMatchObject(expected);
    expect(ids_(data)).toEqual(ids);
  }

  const past = await page('?limit=2&page=7');
  expect(past).toEqual({ ...counters(2, 7, 0, 2), [key]: [] });

  const clamped = await page('?limit=500');
  expect(clamped).toMatchObject(counters(100, 1, 0, 1));

  for (const bad of ['0', '-1', 'abc', '1.5', '']) {
    expectError(await t.http().get(`${path}?limit=${bad}`).set(user.auth), 400, /^limit: /);
    expectError(await t.http().get(`${path}?page=${bad}`).set(user.auth), 400, /^page: /);
  }
  expectError(await t.http().get(`${path}?sort=asc`).set(user.auth), 400, /sort: unknown field/);
}

/** The body of a list route answering all of `items` on its first and only page. */
export function onePage(key: string, items: unknown[]) {
  return {
    error: '0',
    data: {
      result: items.length,
      perpage: 15,
      currentpage: 1,
      nextpage: 0,
      maxpage: 1,
      [key]: items,
    },
  };
}

/**
 * The requests of a resource API of the usual shape, as user `u`: `POST /api/<one>/add`,
 * `GET /api/<one>/:id`, `PUT /api/<one>/:id/update`, `DELETE /api/<one>/:id/delete`, and the list
 * at `listPath` (its collection under `key`), with the list checks bound to that list.
 */
export function resourceApi(t: TestApp, one: string, listPath: string, key: string) {
  const base = `/api/${one}`;
  return {
    list: (u: TestUser, query = '') => t.http().get(`${listPath}${query}`).set(u.auth),
    add: (u: TestUser, body: object) => t.http().post(`${base}/add`).set(u.auth).send(body),
    get: (u: TestUser, id: number | string, query = '') =>
      t.http().get(`${base}/${id}${query}`).set(u.auth),
    update: (u: TestUser, id: number | string, body: object) =>
      t.http().put(`${base}/${id}/update`).set(u.auth).send(body),
    remove: (u: TestUser, id: number | string) =>
      t.http().delete(`${base}/${id}/delete`).set(u.auth),
    /** The list's body holding all of `items` on one page. */
    onePage: (items: unknown[]) => onePage(key, items),
    /** The list's pagination for a user owning exactly `ids` (see expectPagination). */
    expectPagination: (u: TestUser, ids: number[]) => expectPagination(t, u, listPath, key, ids),
  };
}

type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * The routes of an API, each as `'METHOD /documented/{path}'`, with what the route checks need: the
 * collection key of a list route, and the body (if any) and path of the request made without a key
 * (by default the documented path with each `{param}` 1). Returns the checks of those routes.
 */
export function apiRoutes(
  table: Record<
    `${'GET' | 'POST' | 'PUT' | 'DELETE'} /${string}`,
    { list?: string; body?: object; path?: string }
  >,
) {
  const routes = Object.entries(table).map(([route, opts]) => {
    const [method, template] = route.split(' ');
    return { method: method.toLowerCase() as Method, template, ...opts };
  });
  /** Each route answers 401 `{error: 1, message}` to a request without a key. */
  const expectKeyRequired = async (t: TestApp): Promise<void> => {
    for (const { method, template, path, body } of routes) {
      const req = call(t, method)(path ?? template.replace(/\{\w+\}/g, '1'));
      expectError(await (body === undefined ? req : req.send(body)), 401);
    }
  };
  /** Each route is in the OpenAPI document, the list routes with their envelope. */
  const expectRoutesDocumented = (t: TestApp) =>
    expectDocumented(
      t,
      routes.map((r) => [r.template, r.method]),
      routes.flatMap((r) => (r.list ? [[r.template, r.list]] : [])),
    );
  return {
    expectKeyRequired,
    expectDocumented: expectRoutesDocumented,
    /** The two checks as the two tests every resource suite has, under their usual names. */
    itChecksEveryRoute(t: TestApp): void {
      it('401 on every route without a key', () => expectKeyRequired(t));
      it('documents every route in the OpenAPI document, with its envelope and errors', () =>
        expectRoutesDocumented(t));
    },
  };
}

/**
 * The OpenAPI document lists each route with a 200 body schema and a 401, and each list route
 * (`[path, collection key]`) with the list envelope: `error` the string "0", `data.<key>` an array.
 */
export async function expectDocumented(
  t: TestApp,
  routes: Array<[path: string, method: Method]>,
  lists: Array<[path: string, key: string]>,
): Promise<void> {
  const { paths } = (await t.http().get('/docs-json').expect(200)).body;
  for (const [path, method] of routes) {
    const op = paths[path]?.[method];
    expect({ path, method, documented: Boolean(op) }).toEqual({ path, method, documented: true });
    expect(op.responses['200'].content['application/json'].schema).toBeDefined();
    expect(op.responses['401']).toBeDefined();
  }
  for (const [path, key] of lists) {
    const list = paths[path].get.responses['200'].content['application/json'].schema;
    expect(list.properties.error).toMatchObject({ type: 'string', example: '0' });
    expect(list.properties.data.properties[key].type).toBe('array');
  }
}
