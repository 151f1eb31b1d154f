import { Principal } from '@app/common';
import { ShortCodes } from '@app/links';

import { createUser, expectError, TestUser, useSuite } from './support/app';
import { uniq } from './support/links';

/** A `links` row as the tests read it (`tx`: the transaction that wrote it). */
interface LinkRow {
  id: number;
  user_id: number;
  alias: string;
  url: string;
  geo_targets: unknown;
  parameters: unknown;
  tx: string;
}

/**
 * Creations on the pool in one turn of the event loop are written by one statement per shape
 * (libs/links/src/short-codes/insert-batches.ts), each with its own answer, row, audit entry and
 * `link.created` rows, and with the refusals of one written alone.
 */
describe('link creations written together', () => {
  const { t } = useSuite({});
  let a: TestUser;
  let b: TestUser;
  let codes: ShortCodes;

  beforeAll(async () => {
    a = await createUser(t, { plan: 'Pro' });
    b = await createUser(t, { plan: 'Pro' });
    codes = t.app.get(ShortCodes);
    const hook = await t
      .http()
      .post('/api/webhook/add')
      .set(a.auth)
      .send({ url: 'https://hooks.example.com/batch', events: ['link.created'] });
    expect(hook.status).toBe(200);
  });

  /** What the api's creation passes for `u` (ShortCodes.insert), with `values` over a plain link's. */
  const code = (u: TestUser, custom: string | null, values: Record<string, unknown>) => ({
    kind: 'link' as const,
    userId: u.id,
    domain: null,
    custom,
    field: 'custom' as const,
    audit: {
      auth: {
        user: { id: u.id },
        actor: { id: u.id, email: u.email },
        key: null,
      } as unknown as Principal,
      action: 'link.create',
      type: 'link',
      changes: Object.keys(values).sort(),
    },
    values: { title: '', description: '', expiresAt: null, ...values },
  });

  const links = (ids: number[]): Promise<LinkRow[]> =>
    t.db.query(
      `SELECT id, user_id, alias, url, geo_targets, parameters, xmin::text AS tx FROM links
        WHERE id = ANY($1) ORDER BY id`,
      [ids],
    );

  it('links of one shape in one turn: one statement (one transaction), each its own row, audit entry and event', async () => {
    const plain = Array.from({ length: 6 }, (_, i) => ({
      u: i % 2 ? b : a,
      url: `https://example.com/${uniq('p')}`,
    }));
    // a second shape (JSON columns): its own statement, the values kept as JSON
    const targeted = Array.from({ length: 3 }, () => ({
      u: b,
      url: `https://example.com/${uniq('g')}`,
    }));
    const geo = [{ location: 'DE', link: 'https://example.de/' }];
    const parameters = [{ name: 'utm_source', value: 'news' }];
    // every insert called before any answer: the same turn
    const created = await Promise.all([
      ...plain.map((p) => codes.insert(t.db.manager, code(p.u, null, { url: p.url }))),
      ...targeted.map((p) =>
        codes.insert(t.db.manager, code(p.u, null, { url: p.url, geoTargets: geo, parameters })),
      ),
    ]);
    const rows = await links(created.map((c) => c.id));
    expect(rows).toHaveLength(9);
    const byId = new Map(rows.map((r) => [r.id, r]));
    [...plain, ...targeted].forEach((p, i) => {
      const row = byId.get(created[i].id);
      expect(row).toMatchObject({ user_id: p.u.id, url: p.url, alias: created[i].alias });
    });
    const tx = (from: number, to: number) =>
      new Set(created.slice(from, to).map((c) => byId.get(c.id)?.tx));
    // one transaction per shape: the plain links together, the targeted ones together
    expect(tx(0, 6).size).toBe(1);
    expect(tx(6, 9).size).toBe(1);
    expect([...tx(0, 6)][0]).not.toBe([...tx(6, 9)][0]);
    for (const c of created.slice(6)) {
      expect(byId.get(c.id)).toMatchObject({ geo_targets: geo, parameters });
    }
    for (const c of created.slice(0, 6)) {
      expect(byId.get(c.id)).toMatchObject({ geo_targets: null, parameters: null });
    }

    // each link one audit entry of its own creator, naming its fields
    const audit = await t.db.query(
      `SELECT workspace_id, actor_id, actor_email, key_id, action, resource_type, resource_id, changes
         FROM audit_log WHERE resource_type = 'link' AND resource_id = ANY($1) ORDER BY resource_id::int`,
      [created.map((c) => String(c.id))],
    );
    expect(audit).toHaveLength(9);
    for (const entry of audit) {
      const i = created.findIndex((c) => String(c.id) === entry.resource_id);
      const u = [...plain, ...targeted][i].u;
      expect(entry).toEqual({
        workspace_id: u.id,
        actor_id: u.id,
        actor_email: u.email,
        key_id: null,
        action: 'link.create',
        resource_type: 'link',
        resource_id: String(created[i].id),
        changes: i < 6 ? ['url'] : ['geoTargets', 'parameters', 'url'],
      });
    }

    // link.created rows for the subscribed owner's links only, each with its own id and alias
    const events = await t.db.query(
      `SELECT (d.data::jsonb ->> 'id')::int AS id, d.data::jsonb ->> 'alias' AS alias
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.user_id = $1 AND d.event = 'link.created' AND (d.data::jsonb ->> 'id')::int = ANY($2)
        ORDER BY 1`,
      [a.id, created.map((c) => c.id)],
    );
    const ofA = created.filter((_, i) => [...plain, ...targeted][i].u === a);
    expect(ofA).toHaveLength(3);
    expect(events).toEqual(
      ofA.map((c) => ({ id: c.id, alias: c.alias })).sort((x, y) => x.id - y.id),
    );
  });

  it('a chosen alias twice in one turn: one link, the other refused; a taken or reserved alias refused as alone', async () => {
    const dup = uniq('dup');
    const taken = uniq('taken');
    const reserved = uniq('rsv');
    const first = await codes.insert(
      t.db.manager,
      code(b, taken, { url: 'https://example.com/t' }),
    );
    // a takedown reserving an alias for a (its link gone)
    await t.db.query(
      `INSERT INTO link_takedowns (alias, user_id, link_id, kind) VALUES ($1, $2, $3, 'link')`,
      [reserved, a.id, first.id],
    );
    const results = await Promise.allSettled([
      codes.insert(t.db.manager, code(a, dup, { url: 'https://example.com/d1' })),
      codes.insert(t.db.manager, code(b, dup, { url: 'https://example.com/d2' })),
      codes.insert(t.db.manager, code(a, taken, { url: 'https://example.com/t2' })),
      codes.insert(t.db.manager, code(a, reserved, { url: 'https://example.com/r' })),
      codes.insert(t.db.manager, code(a, null, { url: 'https://example.com/ok1' })),
      codes.insert(t.db.manager, code(b, null, { url: 'https://example.com/ok2' })),
    ]);
    const [d1, d2, t2, r, ok1, ok2] = results;
    // exactly one of the two claims of `dup` won
    expect([d1.status, d2.status].sort()).toEqual(['fulfilled', 'rejected']);
    const lost = (d1.status === 'rejected' ? d1 : d2) as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({
      status: 409,
      message: 'custom: this alias is already taken',
    });
    expect(t2).toMatchObject({
      status: 'rejected',
      reason: { status: 409, message: 'custom: this alias is already taken' },
    });
    expect(r).toMatchObject({
      status: 'rejected',
      reason: { status: 403, message: expect.stringMatching(/^custom: this alias was taken down/) },
    });
    expect(ok1.status).toBe('fulfilled');
    expect(ok2.status).toBe('fulfilled');
    const rows = await t.db.query(
      'SELECT alias, url FROM links WHERE alias = ANY($1) ORDER BY alias',
      [[dup, taken, reserved]],
    );
    expect(rows).toEqual(
      [
        {
          alias: dup,
          url: d1.status === 'fulfilled' ? 'https://example.com/d1' : 'https://example.com/d2',
        },
        { alias: taken, url: 'https://example.com/t' },
      ].sort((x, y) => (x.alias < y.alias ? -1 : 1)),
    );
    // one audit entry a link made (`taken`'s first, `dup`'s winner), none for a refusal
    const audit = await t.db.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE resource_type = 'link'
         AND resource_id::int IN (SELECT id FROM links WHERE alias = ANY($1))`,
      [[dup, taken]],
    );
    expect(audit[0].n).toBe(2);
  });

  it('a batch whose statement fails: each link written alone, the failing one gets its error, the others their links', async () => {
    const gone = 2_000_000_000; // no such user: its row breaks the batch's foreign key
    const results = await Promise.allSettled([
      codes.insert(t.db.manager, code(a, null, { url: 'https://example.com/f1' })),
      codes.insert(t.db.manager, {
        ...code(a, null, { url: 'https://example.com/f2' }),
        userId: gone,
      }),
      codes.insert(t.db.manager, code(b, null, { url: 'https://example.com/f3' })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
      driverError: { code: '23503' },
    });
    const made = results
      .filter((r) => r.status === 'fulfilled')
      .map((r) => (r as PromiseFulfilledResult<{ id: number }>).value.id);
    const rows = await links(made);
    expect(rows.map((r) => r.url)).toEqual(['https://example.com/f1', 'https://example.com/f3']);
    expect(
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM links WHERE url = 'https://example.com/f2'`,
        )
      )[0].n,
    ).toBe(0);
  });

  it('through the API: concurrent creations of two users each answer their own link', async () => {
    const urls = Array.from({ length: 20 }, () => `https://example.com/${uniq('api')}`);
    const answers = await Promise.all(
      urls.map((url, i) =>
        t
          .http()
          .post('/api/url/add')
          .set((i % 2 ? b : a).auth)
          .send({ url }),
      ),
    );
    for (const res of answers) expect(res.status).toBe(200);
    const rows = await links(answers.map((r) => r.body.id));
    expect(rows).toHaveLength(20);
    const byId = new Map(rows.map((r) => [r.id, r]));
    answers.forEach((res, i) => {
      expect(byId.get(res.body.id)).toMatchObject({
        url: urls[i],
        user_id: (i % 2 ? b : a).id,
        alias: res.body.shorturl.split('/').pop(),
      });
    });
    expectError(await t.http().post('/api/url/add').set(a.auth).send({ url: 'nope' }), 400);
  });
});
