import { randomBytes } from 'node:crypto';

import { expectError, TestApp, TestUser } from './app';

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

  const all = await page('');
  expect(all).toMatchObject({ result: 3, perpage: 15, currentpage: 1, nextpage: 0, maxpage: 1 });
  expect(ids_(all)).toEqual(newestFirst);

  const p1 = await page('?limit=2');
  expect(p1).toMatchObject({ result: 3, perpage: 2, currentpage: 1, nextpage: 2, maxpage: 2 });
  expect(ids_(p1)).toEqual(newestFirst.slice(0, 2));

  const p2 = await page('?limit=2&page=2');
  expect(p2).toMatchObject({ result: 3, perpage: 2, currentpage: 2, nextpage: 0, maxpage: 2 });
  expect(ids_(p2)).toEqual(newestFirst.slice(2));

  const past = await page('?limit=2&page=7');
  expect(past).toEqual({
    result: 3,
    perpage: 2,
    currentpage: 7,
    nextpage: 0,
    maxpage: 2,
    [key]: [],
  });

  const clamped = await page('?limit=500');
  expect(clamped).toMatchObject({
    result: 3,
    perpage: 100,
    currentpage: 1,
    nextpage: 0,
    maxpage: 1,
  });

  for (const bad of ['0', '-1', 'abc', '1.5', '']) {
    expectError(await t.http().get(`${path}?limit=${bad}`).set(user.auth), 400, /^limit: /);
    expectError(await t.http().get(`${path}?page=${bad}`).set(user.auth), 400, /^page: /);
  }
  expectError(await t.http().get(`${path}?sort=asc`).set(user.auth), 400, /sort: unknown field/);
}

/**
 * The OpenAPI document lists each route with a 200 body schema and a 401, and each list route
 * (`[path, collection key]`) with the list envelope: `error` the string "0", `data.<key>` an array.
 */
export async function expectDocumented(
  t: TestApp,
  routes: Array<[path: string, method: 'get' | 'post' | 'put' | 'delete']>,
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
