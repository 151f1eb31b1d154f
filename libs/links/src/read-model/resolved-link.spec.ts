import { setFlagsFromString } from 'node:v8';

import { fromRow, ResolvedLink, ResolveLinkRow, toCached, toHost } from './resolved-link';

// the columns of a plain link that are not null or false; the others are left out here, as a
// column added later is: fromRow and toCached must give every field a value all the same
const row = {
  id: 7,
  user_id: 3,
  kind: 'link',
  alias: 'abc1234',
  url: 'https://example.com/landing',
  type: 'direct',
  title: 'Landing',
  pixels: [],
} as Partial<ResolveLinkRow> as ResolveLinkRow;

/** What Redis holds: the JSON without the prebuilt fields. */
function stored(link: ResolvedLink): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { redirectHeaders, screenedAt, blocked, ...rest } = toCached(link);
  return rest;
}

/** True when V8 gives the two objects one hidden class (map). */
function sameHiddenClass(a: object, b: object): boolean {
  setFlagsFromString('--allow-natives-syntax');
  return new Function('a', 'b', 'return %HaveSameMap(a, b)')(a, b) as boolean;
}

describe('toCached / toHost: one object shape whatever the source', () => {
  const fromDb = toCached(fromRow(row));

  it('a link from Postgres has every field, none undefined, and its prebuilt 302', () => {
    expect(Object.values(fromDb)).not.toContain(undefined);
    expect(fromDb).toMatchObject({ domainId: null, protected: false, meta: null, blocked: false });
    expect(fromDb.redirectHeaders).toEqual(expect.arrayContaining(['Location', row.url]));
  });

  it('while its target is broken (destination health) the prebuilt 302 goes to its fallback', () => {
    const broken = toCached(fromRow({ ...row, serving_fallback: 'https://fallback.example/' }));
    expect(broken.fallbackUrl).toBe('https://fallback.example/');
    expect(broken.redirectHeaders).toEqual(
      expect.arrayContaining(['Location', 'https://fallback.example/']),
    );
    expect(fromDb.fallbackUrl).toBeNull();
  });

  it('the same link back from Redis (keys in another order) has the keys, order and values of the one from Postgres', () => {
    const reordered = Object.fromEntries(Object.entries(stored(fromDb)).reverse());
    const fromRedis = toCached(JSON.parse(JSON.stringify(reordered)) as ResolvedLink);
    expect(Object.keys(fromRedis)).toEqual(Object.keys(fromDb));
    expect(fromRedis).toEqual(fromDb);
    expect(sameHiddenClass(fromRedis, fromDb)).toBe(true);
  });

  it('an entry from Redis without an optional field (stored before it existed) gets its unset value', () => {
    const optional = Object.entries(stored(fromDb)).filter(
      ([, v]) => v === null || v === false || (Array.isArray(v) && v.length === 0),
    );
    expect(optional.map(([k]) => k)).toEqual(expect.arrayContaining(['deepLink', 'pixels']));
    for (const [name] of optional) {
      const entry = stored(fromDb);
      delete entry[name];
      const fromRedis = toCached(JSON.parse(JSON.stringify(entry)) as ResolvedLink);
      expect(Object.keys(fromRedis)).toEqual(Object.keys(fromDb));
      expect(fromRedis).toEqual(fromDb);
      expect(sameHiddenClass(fromRedis, fromDb)).toBe(true);
    }
  });

  it('a host from Redis has the keys of one from Postgres', () => {
    const fromDb = toHost({
      id: 1,
      redirectRoot: '',
      redirect404: 'https://x.test/',
      verified: true,
    });
    const fromRedis = toHost(
      JSON.parse('{"verified":true,"redirect404":"https://x.test/","id":1}'),
    );
    expect(Object.keys(fromRedis)).toEqual(Object.keys(fromDb));
    expect(fromRedis).toEqual(fromDb);
  });
});
