import { DataSource, EntityManager, Repository } from 'typeorm';

import { AppError, PlanService, Principal, PublicUrls } from '@app/common';
import { AppConfig } from '@app/config';
import { Domain, Plan } from '@app/database';
import { WebhookDeliveries, WebhookOutbox } from '@app/webhooks';

import { linkEvent } from './link-event';
import { drawAlias, expiryDate, QR_CODE_LENGTH, ShortCodes } from './short-codes';

const urls = new PublicUrls({ publicUrl: 'http://s.test' } as AppConfig);

/** A DataSource whose metadata maps camelCase properties to snake_case columns. */
const db = {
  getMetadata: () => ({
    findColumnWithPropertyName: (p: string) => ({
      databaseName: p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    }),
  }),
  driver: { preparePersistentValue: (v: unknown) => v },
  manager: {},
} as unknown as DataSource;

/**
 * An EntityManager (in a transaction: its query runner's pg client takes named statements)
 * answering each statement by `answer` (rows), recording what it ran and under which name.
 */
function manager(answer: (sql: string, params: unknown[]) => unknown[]) {
  const ran: Array<{ sql: string; params: unknown[]; name?: string }> = [];
  const client = {
    query: async (q: { name?: string; text: string; values: unknown[] }) => {
      ran.push({ sql: q.text, params: q.values, name: q.name });
      return { rows: answer(q.text, q.values) };
    },
  };
  const em = {
    queryRunner: { isReleased: false, connect: async () => client },
    query: async (sql: string, params: unknown[]) => {
      ran.push({ sql, params });
      return answer(sql, params);
    },
  } as unknown as EntityManager;
  return { em, ran };
}

const plans = new PlanService({} as Repository<Plan>, db);
const codes = new ShortCodes(db, plans, urls, new WebhookOutbox(new WebhookDeliveries(db)));
const admin = { isAdmin: true, user: { id: 7 } } as unknown as Principal;
const free = {
  isAdmin: false,
  user: { id: 7 },
  plan: { limits: { alias: { enabled: '0' }, links: '0' } },
} as unknown as Principal;
const link = {
  kind: 'link' as const,
  userId: 7,
  domain: null,
  field: 'custom' as const,
  values: { url: 'https://example.com/', title: 'T', description: '' },
};

describe('ShortCodes', () => {
  it('checkAlias: the plan feature first, then the rules, naming the caller’s field', () => {
    expect(() => codes.checkAlias(free, 'alias', 'good-one')).toThrow(/"alias" feature/);
    expect(() => codes.checkAlias(admin, 'alias', 'ab')).toThrow('alias: must be 3 to 64');
    expect(() => codes.checkAlias(admin, 'custom', 'Health2')).toThrow('custom: is reserved');
    expect(() => codes.checkAlias(admin, 'custom', 'good-one')).not.toThrow();
  });

  it('inserts a link and its link.created rows in one statement', async () => {
    const { em, ran } = manager(() => [{ id: 41 }]);
    const created = await codes.insert(em, { ...link, custom: null });
    expect(created).toMatchObject({ id: 41 });
    expect(created.alias).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(ran).toHaveLength(1);
    expect(ran[0].sql).toMatch(/ON CONFLICT \(alias\) DO NOTHING/);
    expect(ran[0].sql).toMatch(/'link\.created'/);
    const data = JSON.parse(ran[0].params.at(-1) as string);
    expect(data).toMatchObject({
      alias: created.alias,
      shorturl: `http://s.test/${created.alias}`,
      longurl: 'https://example.com/',
      title: 'T',
      domain: null,
    });
  });

  it('writes the audit entry in the same statement (a CTE), its parameters after the event’s and before the rider’s', async () => {
    const auth = {
      user: { id: 7 },
      actor: { id: 9, email: 'm@e.x' },
      key: { id: 4, scopes: ['links:write'] },
    } as unknown as Principal;
    const audit = { auth, action: 'link.create', type: 'link', changes: ['url', 'title', 'url'] };
    const { em, ran } = manager(() => [{ id: 41 }]);
    await codes.insert(em, { ...link, custom: null, audit });
    expect(ran).toHaveLength(1);
    const { sql, params } = ran[0];
    expect(sql).toMatch(/hooks AS \(\s*INSERT INTO webhook_deliveries/);
    expect(sql).toMatch(/audit AS \(\s*INSERT INTO audit_log/);
    expect(sql).toMatch(/SELECT id FROM created$/);
    // url, title, description, user_id, kind, the alias, then the event's two, then the audit's
    expect(params.slice(-7)).toEqual([7, 9, 'm@e.x', 4, 'link.create', 'link', ['title', 'url']]);
    expect(sql).toContain(`$${params.length - 6}::int`);
    expect(sql).toContain(`$${params.length}::text[]`);

    // a rider's parameters come after the audit's; a bio page (no event) has the audit alone
    const bio = manager(() => [{ id: 42 }]);
    await codes.insert(
      bio.em,
      {
        ...link,
        kind: 'bio',
        custom: null,
        audit: { ...audit, action: 'bio.create', type: 'bio' },
      },
      { sql: (p) => `SELECT id, $${p}::int AS extra FROM created`, params: [99] },
    );
    const b = bio.ran[0];
    expect(b.sql).not.toMatch(/link\.created/);
    expect(b.params.at(-1)).toBe(99);
    expect(b.params.at(-3)).toBe('bio');
    expect(b.sql).toContain(`$${b.params.length}::int AS extra`);
  });

  it('sends the insert as a named prepared statement: one name per statement text', async () => {
    const { em, ran } = manager(() => [{ id: 41 }]);
    await codes.insert(em, { ...link, custom: null });
    await codes.insert(em, { ...link, custom: null });
    await codes.insert(em, { ...link, values: { ...link.values, title: undefined }, custom: null });
    expect(ran[0].name).toMatch(/^short_codes_insert_\d+$/);
    expect(ran[1].name).toBe(ran[0].name);
    expect(ran[1].sql).toBe(ran[0].sql);
    expect(ran[2].sql).not.toBe(ran[0].sql);
    expect(ran[2].name).toMatch(/^short_codes_insert_\d+$/);
    expect(ran[2].name).not.toBe(ran[0].name);
  });

  it('draws again, longer, when a drawn alias is taken; refuses a chosen one (409)', async () => {
    let n = 0;
    const { em, ran } = manager((sql) =>
      sql.includes('link_takedowns') ? [] : n++ < 2 ? [] : [{ id: 5 }],
    );
    const created = await codes.insert(em, { ...link, kind: 'bio', custom: null });
    expect(ran).toHaveLength(3);
    expect(created.alias).toHaveLength(8);
    expect(ran[0].sql).not.toMatch(/link\.created/); // bio pages have no link events

    const taken = manager((sql) => (sql.includes('link_takedowns') ? [] : []));
    const err = (await codes
      .insert(taken.em, { ...link, custom: 'mine' })
      .catch((e: unknown) => e)) as AppError;
    expect(err.message).toBe('custom: this alias is already taken');
    expect(taken.ran).toHaveLength(2); // the insert, then who reserves it
  });

  it('a chosen alias reserved for its owner by a takedown is a 403 saying so', async () => {
    const { em } = manager((sql) => (sql.includes('link_takedowns') ? [{ user_id: 7 }] : []));
    await expect(codes.insert(em, { ...link, field: 'custom', custom: 'gone' })).rejects.toThrow(
      'custom: this alias was taken down by an administrator',
    );
  });

  it('batches: one statement a draw, the drawn ones retried, the chosen ones refused, then the events', async () => {
    let draw = 0;
    const { em, ran } = manager((sql, params) => {
      if (!sql.startsWith('INSERT INTO links')) return [];
      const aliases = params[1] as string[];
      draw++;
      // first draw: only the chosen alias "b" is written (the drawn one collides, "c" is taken)
      return draw === 1
        ? [{ id: 1, alias: 'b' }]
        : aliases.map((alias, i) => ({ id: 10 + i, alias }));
    });
    const row = (custom: string | null) => ({
      custom,
      domain: { id: 3, domain: 'https://br.example', host: 'br.example' } as Domain,
      values: { url: 'https://e.x/', title: '', description: '', expiresAt: null },
    });
    const { created, refused } = await codes.insertMany(em, 7, [row(null), row('b'), row('c')]);
    expect(refused.map((r) => r.custom)).toEqual(['c']);
    expect(created.map((c) => c.alias)).toEqual(['b', expect.stringMatching(/^\w{7}$/)]);
    expect(ran.filter((r) => r.sql.startsWith('INSERT INTO links'))).toHaveLength(2);
    const events = ran.at(-1)!;
    expect(events.params[1]).toBe('link.created');
    expect(JSON.parse((events.params[2] as string[])[0])).toMatchObject({
      id: 1,
      alias: 'b',
      shorturl: 'https://br.example/b',
      domain: 'br.example',
    });
  });

  it('drawn aliases: QR codes keep their fixed length; the others grow every second draw', () => {
    expect(drawAlias('qr', 0)).toHaveLength(QR_CODE_LENGTH);
    expect(drawAlias('qr', 6)).toHaveLength(QR_CODE_LENGTH);
    expect(drawAlias('link', 0)).toHaveLength(7);
    expect(drawAlias('bio', 4)).toHaveLength(9);
  });

  it('expiryDate: absent is none; a malformed or past date is a 400 naming expiry', () => {
    expect(expiryDate(undefined)).toBeNull();
    expect(expiryDate(null)).toBeNull();
    expect(() => expiryDate('tomorrow')).toThrow('expiry: must be a valid date-time');
    expect(() => expiryDate('2001-01-01 00:00:00')).toThrow('expiry: must be in the future');
    expect(expiryDate('2999-01-01 00:00:00')?.toISOString()).toBe('2999-01-01T00:00:00.000Z');
  });

  it('linkEvent: the one shape of link.created and link.updated data', () => {
    const date = new Date('2026-01-02T03:04:05Z');
    const link = { id: 9, alias: 'abc', url: 'https://e.x/', title: 't', description: 'd' };
    expect(linkEvent(urls, link, null, date)).toEqual({
      id: 9,
      alias: 'abc',
      shorturl: 'http://s.test/abc',
      longurl: 'https://e.x/',
      title: 't',
      description: 'd',
      domain: null,
      date: '2026-01-02 03:04:05',
    });
  });
});
