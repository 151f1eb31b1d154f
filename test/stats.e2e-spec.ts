import { Cluster } from 'ioredis';

import { createPlan, createTestWorker, createUser, TestUser, useTestApp } from './support/app';

import { dayKey, hourKey, monthKey, placeOfAddress, VisitRecorder } from '@app/stats';

import { insertLink } from './support/resources';
import {
  BROWSER_UA,
  dirtyLinks,
  EMPTY_STATS,
  eventually,
  foldStats,
  inflightBatches,
  PREVIEW_UA,
  readStats,
  recordVisit,
  redisKeys,
  statsFold,
  statsKeys,
} from './support/stats';

describe('visit statistics: recording, reads, folding', () => {
  const t = useTestApp();
  let user: TestUser;
  let n = 0;
  const newLink = () =>
    insertLink(t, user.id, { alias: `st${process.pid}x${Date.now().toString(36)}${++n}` }).then(
      (l) => l.id,
    );
  const stored = async (linkId: number) => {
    const [row] = await t.db.query(
      `SELECT clicks::int, uniques::int FROM link_stats_total WHERE link_id = $1`,
      [linkId],
    );
    return row ?? { clicks: 0, uniques: 0 };
  };

  beforeAll(async () => {
    user = await createUser(t);
  });

  it('a new link has the documented empty statistics', async () => {
    expect(await readStats(t, await newLink())).toEqual(EMPTY_STATS);
  });

  it('a visit shows up before the fold, with every dimension, and stays the same after it', async () => {
    const linkId = await newLink();
    expect(
      await recordVisit(t, {
        linkId,
        userId: user.id,
        referer: 'https://www.facebook.com/some/post',
      }),
    ).toBe(true);
    const expected = {
      clicks: 1,
      uniqueClicks: 1,
      topCountries: { 'United States': '1' },
      topReferrers: { 'facebook.com': '1' },
      topBrowsers: { Chrome: '1' },
      topOs: { Windows: '1' },
      topCities: { [placeOfAddress('8.8.8.8').city]: '1' },
      topRegions: { [placeOfAddress('8.8.8.8').region]: '1' },
      topUtmSources: {},
      topUtmMediums: {},
      topUtmCampaigns: {},
      topReferrerUrls: { 'https://www.facebook.com/some/post': '1' },
      topDeviceModels: {},
      socialCount: { network01: 1, network02: 0, network03: 0 },
    };
    expect(await readStats(t, linkId)).toEqual(expected);
    await foldStats(t);
    expect(await stored(linkId)).toEqual({ clicks: 1, uniques: 1 });
    expect(await readStats(t, linkId)).toEqual(expected);
  });

  it('bots, preview fetchers and HEAD requests are not counted', async () => {
    const linkId = await newLink();
    expect(await recordVisit(t, { linkId, userId: user.id, userAgent: PREVIEW_UA })).toBe(false);
    expect(await recordVisit(t, { linkId, userId: user.id, userAgent: 'Twitterbot/1.0' })).toBe(
      false,
    );
    expect(await recordVisit(t, { linkId, userId: user.id, method: 'HEAD' })).toBe(false);
    await foldStats(t);
    expect(await readStats(t, linkId)).toEqual(EMPTY_STATS);
  });

  it('unique visitors stay unique (same IP and agent), across folds on the same day', async () => {
    const linkId = await newLink();
    await recordVisit(t, { linkId, userId: user.id, ip: '1.1.1.1' });
    await recordVisit(t, { linkId, userId: user.id, ip: '1.1.1.1' });
    await foldStats(t);
    await recordVisit(t, { linkId, userId: user.id, ip: '1.1.1.1' });
    await recordVisit(t, { linkId, userId: user.id, ip: '9.9.9.9' });
    expect(await readStats(t, linkId)).toMatchObject({ clicks: 4, uniqueClicks: 2 });
    await foldStats(t);
    expect(await stored(linkId)).toEqual({ clicks: 4, uniques: 2 });
    expect(await readStats(t, linkId)).toMatchObject({ clicks: 4, uniqueClicks: 2 });
  });

  it('no raw IP is stored in Redis or Postgres', async () => {
    const linkId = await newLink();
    await recordVisit(t, { linkId, userId: user.id, ip: '203.0.113.77' });
    const keys = await redisKeys(t, `${t.redis.prefix}:st:*`);
    for (const key of keys) {
      const type = await t.redis.client.type(key);
      const dump =
        type === 'hash'
          ? JSON.stringify(await t.redis.client.hgetall(key))
          : type === 'set'
            ? JSON.stringify(await t.redis.client.smembers(key))
            : '';
      expect(`${key} ${dump}`).not.toContain('203.0.113.77');
    }
    await foldStats(t);
    const [dump] = await t.db.query(
      `SELECT string_agg(label, ',') AS labels FROM link_stats_dims WHERE link_id = $1`,
      [linkId],
    );
    expect(dump.labels).not.toContain('203.0.113.77');
  });

  it('top maps list at most 10 entries, largest first, counts as strings', async () => {
    const linkId = await newLink();
    for (let i = 0; i < 12; i++) {
      for (let k = 0; k <= (i === 11 ? 2 : 0); k++) {
        await recordVisit(t, {
          linkId,
          userId: user.id,
          referer: `https://site${String(i).padStart(2, '0')}.example/`,
        });
      }
    }
    const stats = await readStats(t, linkId);
    expect(Object.keys(stats.topReferrers)).toHaveLength(10);
    expect(Object.entries(stats.topReferrers)[0]).toEqual(['site11.example', '3']);
    expect(stats.clicks).toBe(14);
    await foldStats(t);
    expect((await readStats(t, linkId)).topReferrers).toEqual(stats.topReferrers);
  });

  it('two folds running concurrently count every visit exactly once', async () => {
    const ids = [await newLink(), await newLink(), await newLink()];
    for (const linkId of ids)
      for (let i = 0; i < 5; i++)
        await recordVisit(t, { linkId, userId: user.id, ip: `5.5.5.${i}` });
    await Promise.all([foldStats(t), foldStats(t), foldStats(t)]);
    for (const linkId of ids) expect(await stored(linkId)).toEqual({ clicks: 5, uniques: 5 });
  });

  it('a crash after claiming (before the Postgres write) loses nothing: the next fold applies the batch', async () => {
    const linkId = await newLink();
    await recordVisit(t, { linkId, userId: user.id });
    await recordVisit(t, { linkId, userId: user.id, ip: '4.4.4.4' });
    const batch = await statsFold(t).claimOnly();
    expect(batch).not.toBeNull();
    // claimed but not applied: reads still see the visits
    expect((await readStats(t, linkId)).clicks).toBe(2);
    await recordVisit(t, { linkId, userId: user.id });
    await foldStats(t);
    expect(await stored(linkId)).toEqual({ clicks: 3, uniques: 2 });
    expect(await inflightBatches(t)).toEqual([]);
  });

  it('a crash after the Postgres commit (before cleanup) does not count twice', async () => {
    const linkId = await newLink();
    await recordVisit(t, { linkId, userId: user.id });
    const folder = statsFold(t);
    const batch = (await folder.claimOnly()) as string;
    await folder.applyBatch(batch, { skipCleanup: true });
    expect(await stored(linkId)).toEqual({ clicks: 1, uniques: 1 });
    // the batch is still in Redis, but reads must not add it on top of Postgres
    expect((await readStats(t, linkId)).clicks).toBe(1);
    await foldStats(t);
    expect(await stored(linkId)).toEqual({ clicks: 1, uniques: 1 });
    expect((await readStats(t, linkId)).clicks).toBe(1);
  });

  it('visits of a link deleted before the fold are dropped without failing the batch', async () => {
    const gone = await newLink();
    const kept = await newLink();
    await recordVisit(t, { linkId: gone, userId: user.id });
    await recordVisit(t, { linkId: kept, userId: user.id });
    await t.db.query(`DELETE FROM links WHERE id = $1`, [gone]);
    await foldStats(t);
    expect(await stored(kept)).toEqual({ clicks: 1, uniques: 1 });
    expect(await stored(gone)).toEqual({ clicks: 0, uniques: 0 });
  });

  it('pending counters left by an earlier version (one field per dimension) still read and fold', async () => {
    const linkId = await newLink();
    const day = dayKey(new Date());
    await recordVisit(t, { linkId, userId: user.id, referer: 'https://t.co/x' }); // a profile field
    await t.redis.client.hset(statsKeys(t).pending(linkId), {
      [`${day}|c`]: '2',
      [`${day}|u`]: '1',
      [`${day}|co|France`]: '2',
      [`${day}|re|t.co`]: '2',
      [`${day}|br|Chrome`]: '2',
      [`${day}|os|Windows`]: '2',
      [`${day}|so|network02`]: '2',
    });
    const expected = (await readStats(t, linkId)) as { topReferrers: object; clicks: number };
    expect(expected.clicks).toBe(3);
    expect(expected.topReferrers).toEqual({ 't.co': '3' });
    await foldStats(t);
    expect(await readStats(t, linkId)).toEqual(expected);
    const [row] = await t.db.query(
      `SELECT count::int FROM link_stats_dims WHERE link_id = $1 AND dim = 're' AND label = 't.co'`,
      [linkId],
    );
    expect(row).toEqual({ count: 3 });
  });

  it("past the plan's monthly clicks cap, visits are not counted", async () => {
    const planId = await createPlan(t, { clicks: 2 });
    const capped = await createUser(t, { planId, expires: null });
    const { id: linkId } = await insertLink(t, capped.id, {
      alias: `cap${Date.now().toString(36)}`,
    });
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push(await recordVisit(t, { linkId, userId: capped.id, ip: `7.7.7.${i}` }));
    expect(results).toEqual([true, true, false, false]);
    expect((await readStats(t, linkId)).clicks).toBe(2);
  });

  it('record(): visits of an uncapped owner are aggregated in memory, then written exactly', async () => {
    const recorder = t.app.get(VisitRecorder);
    const unlimited = await createUser(t, { planId: await createPlan(t, { clicks: 0 }) });
    const { id: linkId } = await insertLink(t, unlimited.id, {
      alias: `agg${Date.now().toString(36)}`,
    });
    const visit = {
      linkId,
      userId: unlimited.id,
      method: 'GET',
      ip: '8.8.8.8',
      userAgent: BROWSER_UA,
      referer: 'https://t.co/abc',
    };
    // the owner's cap not cached yet: the visit waits for it (read with the other waiting
    // visits' owners), then joins the in-memory log like the rest: no click taken of a monthly
    // allowance the owner does not have
    recorder.record(visit);
    await eventually(async () => (await readStats(t, linkId)).clicks === 1);
    expect(await t.redis.client.exists(statsKeys(t).cap(unlimited.id, monthKey(new Date())))).toBe(
      0,
    );
    for (let i = 0; i < 50; i++) recorder.record({ ...visit, ip: `90.1.2.${i % 10}` });
    // a returning visitor from elsewhere: its own referrer, the same unique visitor
    recorder.record({ ...visit, ip: '90.1.2.3', referer: 'https://www.facebook.com/post' });
    recorder.record({ ...visit, userAgent: PREVIEW_UA });
    recorder.record({ ...visit, method: 'HEAD' });
    // only the first visit is in Redis yet: one counter, its profile
    const us = placeOfAddress('8.8.8.8');
    expect(await t.redis.client.hgetall(statsKeys(t).pending(linkId))).toEqual({
      [`${dayKey(new Date())}|v|United States|t.co|Chrome|Windows|network02|desktop|Unknown|${us.city}|${us.region}||||https://t.co/abc||${hourKey(new Date()).slice(8)}`]:
        '1',
    });
    await recorder.flush();
    const ips = [
      '8.8.8.8',
      ...Array.from({ length: 50 }, (_, i) => `90.1.2.${i % 10}`),
      '90.1.2.3',
    ];
    const topPlaces = (labelOf: (ip: string) => string) => {
      const m = new Map<string, number>();
      for (const ip of ips) m.set(labelOf(ip), (m.get(labelOf(ip)) ?? 0) + 1);
      return Object.fromEntries(
        [...m]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .slice(0, 10)
          .map(([k, n]) => [k, String(n)]),
      );
    };
    const expected = {
      clicks: 52,
      uniqueClicks: 11,
      topCountries: { France: '51', 'United States': '1' },
      topReferrers: { 't.co': '51', 'facebook.com': '1' },
      topBrowsers: { Chrome: '52' },
      topOs: { Windows: '52' },
      topCities: topPlaces((ip) => placeOfAddress(ip).city),
      topRegions: topPlaces((ip) => placeOfAddress(ip).region),
      topUtmSources: {},
      topUtmMediums: {},
      topUtmCampaigns: {},
      topReferrerUrls: { 'https://t.co/abc': '51', 'https://www.facebook.com/post': '1' },
      topDeviceModels: {},
      socialCount: { network01: 1, network02: 51, network03: 0 },
    };
    expect(await readStats(t, linkId)).toEqual(expected);
    await foldStats(t);
    expect(await stored(linkId)).toEqual({ clicks: 52, uniques: 11 });
    expect(await readStats(t, linkId)).toEqual(expected);
  });

  it('record(): a flush spanning many chunks and pipelines writes every link, and large visitor sets', async () => {
    const recorder = t.app.get(VisitRecorder);
    const unlimited = await createUser(t, { planId: await createPlan(t, { clicks: 0 }) });
    const prefix = `many${Date.now().toString(36)}`;
    const ids: number[] = (
      await t.db.query(
        `INSERT INTO links (user_id, alias, url)
         SELECT $1, $2 || i, 'https://example.com/' FROM generate_series(1, 450) AS i RETURNING id`,
        [unlimited.id, prefix],
      )
    ).map((r: { id: number }) => r.id);
    const visit = (linkId: number, ip: string) => ({
      linkId,
      userId: unlimited.id,
      method: 'GET',
      ip,
      userAgent: BROWSER_UA,
      referer: undefined,
    });
    await recorder.recordNow(visit(ids[0], '9.9.9.9')); // caches the owner's (absent) cap
    // every link visited (i % 3) + 1 times by one visitor; the first link by 1 500 more visitors
    ids.forEach((id, i) => {
      for (let k = 0; k <= i % 3; k++) recorder.record(visit(id, '8.8.4.4'));
    });
    for (let v = 0; v < 1500; v++) recorder.record(visit(ids[0], `1.${v >> 8}.${v & 255}.1`));
    await recorder.flush();

    const dirty = new Set(await dirtyLinks(t));
    expect(ids.filter((id) => !dirty.has(String(id)))).toEqual([]);
    for (const i of [1, 99, 100, 101, 399, 400, 449]) {
      const stats = await readStats(t, ids[i]);
      expect({ clicks: stats.clicks, uniqueClicks: stats.uniqueClicks }).toEqual({
        clicks: (i % 3) + 1,
        uniqueClicks: 1,
      });
    }
    const first = await readStats(t, ids[0]);
    expect(first.clicks).toBe(1 + 1 + 1500);
    // HyperLogLog: within its documented error (0.81 %) of the 1 502 distinct visitors
    expect(Math.abs(first.uniqueClicks - 1502)).toBeLessThanOrEqual(1502 * 0.02);
    const hll = statsKeys(t).visitors(ids[449], dayKey(new Date()));
    expect(await t.redis.client.ttl(hll)).toBe(-1); // no expiry on the request path...
    await foldStats(t);
    expect((await readStats(t, ids[449])).clicks).toBe((449 % 3) + 1);
    // ...the fold that reads it sets it
    expect(await t.redis.client.ttl(hll)).toBeGreaterThan(3 * 24 * 3600 - 60);
  });

  it('record(): visits of a capped owner stay exact per visit, so the cap holds', async () => {
    const recorder = t.app.get(VisitRecorder);
    const capped = await createUser(t, { planId: await createPlan(t, { clicks: 3 }) });
    const { id: linkId } = await insertLink(t, capped.id, {
      alias: `capr${Date.now().toString(36)}`,
    });
    for (let i = 0; i < 6; i++) {
      recorder.record({
        linkId,
        userId: capped.id,
        method: 'GET',
        ip: `3.3.3.${i}`,
        userAgent: BROWSER_UA,
        referer: undefined,
      });
      await new Promise((r) => setImmediate(r));
    }
    await eventually(async () => (await readStats(t, linkId)).clicks === 3);
    await new Promise((r) => setTimeout(r, 300));
    await recorder.flush();
    expect((await readStats(t, linkId)).clicks).toBe(3);
  });

  it('the worker folds on its schedule (STATS_FOLD_SECONDS)', async () => {
    const worker = await createTestWorker();
    try {
      const linkId = await newLink();
      await recordVisit(t, { linkId, userId: user.id, userAgent: BROWSER_UA });
      await eventually(async () => (await stored(linkId)).clicks === 1, 15_000);
    } finally {
      await worker.close();
    }
  });
  it('concurrent visits at the monthly cap: exactly the cap is counted (the cap is taken atomically first)', async () => {
    const capped = await createUser(t, { planId: await createPlan(t, { clicks: 5 }) });
    const { id: linkId } = await insertLink(t, capped.id, {
      alias: `capc${Date.now().toString(36)}`,
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        recordVisit(t, { linkId, userId: capped.id, ip: `6.6.${i}.1` }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(5);
    await foldStats(t);
    expect((await stored(linkId)).clicks).toBe(5);
  });

  it('a visit whose recording fails after its click was taken gives the click back', async () => {
    const capped = await createUser(t, { planId: await createPlan(t, { clicks: 2 }) });
    const { id: linkId } = await insertLink(t, capped.id, {
      alias: `capf${Date.now().toString(36)}`,
    });
    const keys = statsKeys(t);
    const cap = keys.cap(capped.id, monthKey(new Date()));
    await t.redis.client.set(keys.pending(linkId), 'not a hash'); // HINCRBY fails: WRONGTYPE
    expect(await recordVisit(t, { linkId, userId: capped.id })).toBe(false);
    await eventually(async () => (await t.redis.client.get(cap)) === '0', 2000, 20);
    await t.redis.client.del(keys.pending(linkId));
    expect(await recordVisit(t, { linkId, userId: capped.id, ip: '2.2.2.1' })).toBe(true);
    expect(await recordVisit(t, { linkId, userId: capped.id, ip: '2.2.2.2' })).toBe(true);
    expect(await recordVisit(t, { linkId, userId: capped.id, ip: '2.2.2.3' })).toBe(false);
  });

  // A deployment upgrading from the layout before partitions (single or sentinel mode: a
  // cluster deployment starts with partitions) may hold pending counters, a batch in flight and
  // visitors HyperLogLogs under the old keys: the worker folds them, once.
  (process.env.TEST_REDIS === 'cluster' ? it.skip : it)(
    'counters pending in the layout before partitions reach Postgres exactly once',
    async () => {
      const [a, b] = [await newLink(), await newLink()];
      const old = `${t.redis.prefix}:st`;
      const day = dayKey(new Date());
      const field = (country: string) => `${day}|v|${country}|Direct|Chrome|Windows||desktop|en`;
      await t.redis.client.hset(`${old}:p:${a}`, { [field('DE')]: '3', [field('FR')]: '2' });
      await t.redis.client.sadd(`${old}:dirty`, String(a));
      await t.redis.client.pfadd(`${old}:u:${a}:${day}`, 'v1', 'v2', 'v3');
      // a batch an earlier worker claimed and did not apply
      const batch = `${Date.now()}-00000000-0000-4000-8000-000000000000`;
      await t.redis.client.sadd(`${old}:inflight`, batch);
      await t.redis.client.sadd(`${old}:b:${batch}`, String(b));
      await t.redis.client.hset(`${old}:b:${batch}:${b}`, { [field('US')]: '4' });
      await t.redis.client.pfadd(`${old}:u:${b}:${day}`, 'w1', 'w2');
      // and a visit of today under the new layout: a's day counts the visitors of both
      await recordVisit(t, { linkId: a, userId: user.id, ip: '4.3.2.1' });

      const worker = await createTestWorker();
      try {
        await eventually(
          async () => (await stored(a)).clicks === 6 && (await stored(b)).clicks === 4,
          15_000,
        );
      } finally {
        await worker.close();
      }
      await foldStats(t);
      await foldStats(t);
      expect(await stored(a)).toEqual({ clicks: 6, uniques: 4 });
      expect(await stored(b)).toEqual({ clicks: 4, uniques: 2 });
      const left = await redisKeys(t, `${old}:[pbu]:*`);
      if (process.env.DATABASE_REPLICA_URLS) {
        // with read replicas (TEST_PG_REPLICA=1) applied batches' keys outlive their clean-up
        // for the grace period, expiring
        for (const key of left) {
          expect(key).toContain(`${old}:b:`);
          expect(await t.redis.client.pttl(key)).toBeGreaterThan(0);
        }
      } else expect(left).toEqual([]);
      expect(await t.redis.client.exists(`${old}:dirty`, `${old}:inflight`)).toBe(0);
      const [countries] = await t.db.query(
        `SELECT json_object_agg(label, count) AS c FROM link_stats_dims WHERE link_id = $1 AND dim = 'co'`,
        [a],
      );
      expect(countries.c).toMatchObject({ DE: 3, FR: 2 });
    },
    30_000,
  );

  // On a cluster no primary holds most of the statistics keys: partitions spread over the slots.
  (process.env.TEST_REDIS === 'cluster' ? it : it.skip)(
    'under recording load, no cluster primary holds more than 60 % of the statistics keys',
    async () => {
      const recorder = t.app.get(VisitRecorder);
      const owner = await createUser(t, { planId: await createPlan(t, { clicks: 0 }) });
      const ids = Array.from({ length: 400 }, (_, i) => 900_000_000 + i); // no such links
      await recorder.recordNow({
        linkId: ids[0],
        userId: owner.id,
        method: 'GET',
        ip: '9.8.7.6',
        userAgent: BROWSER_UA,
        referer: undefined,
      }); // caches the owner's (absent) cap: the rest aggregate
      for (const [i, linkId] of ids.entries())
        for (let k = 0; k < 5; k++)
          recorder.record({
            linkId,
            userId: owner.id,
            method: 'GET',
            ip: `9.${i >> 8}.${i & 255}.${k}`,
            userAgent: BROWSER_UA,
            referer: undefined,
          });
      await recorder.flush();
      const client = t.redis.client as Cluster;
      const perNode = await Promise.all(
        client
          .nodes('master')
          .map(async (node) => (await node.keys(`${t.redis.prefix}:st:*`)).length),
      );
      const total = perNode.reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(801); // a pending hash and a HyperLogLog per link, dirty sets
      for (const n of perNode) expect(n / total).toBeLessThanOrEqual(0.6);
      expect(perNode.filter((n) => n > 0)).toHaveLength(perNode.length);
      await foldStats(t); // the links do not exist: their counts are dropped
    },
  );
});
