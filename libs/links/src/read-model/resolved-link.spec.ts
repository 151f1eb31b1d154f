import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
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

describe("toCached: a cold redirect's links die young", () => {
  /**
   * Builds 60 000 links and 60 000 of a control literal of the same fields in a node whose young
   * generation is at its largest at every collection (1 MB), keeping them all: V8 then tenures
   * an object literal's allocation site, as it did the cached link's in the cold api, and
   * allocates its next objects straight into the old generation. Answers where the next of each
   * is allocated. A child process: the young generation's size is fixed at start.
   */
  function afterEveryOneSurvived(): Record<string, boolean> {
    const script = `
      const { toCached, redirectHeaders } = require(${JSON.stringify(join(__dirname, 'resolved-link'))});
      const young = new Function('o', 'return %InYoungGeneration(o)');
      const literal = new Function('link', 'return { id: link.id, url: link.url, title: link.title, domainId: link.domainId ?? null };');
      const link = (i) => ({ id: i, userId: 3, kind: 'link', alias: 'a' + i, url: 'https://example.com/' + i, type: 'direct', title: 't' });
      const kept = [];
      for (let i = 0; i < 60000; i++) kept.push(toCached(link(i)), literal(link(i)));
      const cached = toCached(link(1));
      console.log(JSON.stringify({
        control: young(literal(link(1))),
        link: young(cached),
        headers: young(cached.redirectHeaders),
        responderHeaders: young(redirectHeaders('https://example.com/')),
        kept: kept.length,
      }));`;
    const out = execFileSync(
      process.execPath,
      [
        '--allow-natives-syntax',
        '--max-semi-space-size=1',
        '--min-semi-space-size=1',
        '-r',
        'ts-node/register/transpile-only',
        '-r',
        'tsconfig-paths/register',
        '-e',
        script,
      ],
      { encoding: 'utf8', cwd: join(__dirname, '..', '..', '..', '..') },
    );
    return JSON.parse(out.trim().split('\n').pop() as string) as Record<string, boolean>;
  }

  it('made after every earlier one outlived its collections, a link and its 302 headers are still young', () => {
    const where = afterEveryOneSurvived();
    // the control: the same history sends an object literal's next objects to the old generation
    expect(where.control).toBe(false);
    expect(where).toMatchObject({ link: true, headers: true, responderHeaders: true });
  }, 60_000);
});
