import {
  addDays,
  encodeDense,
  HLL_REGISTERS,
  isoDay,
  MAX_REACH_LINKS,
  REACH_ERROR,
  VisitRecorder,
} from '@app/stats';

import { createUser, expectError, TestUser, useSuite } from './support/app';
import { insertCampaign, insertChannel } from './support/links';
import { insertLink, insertQr } from './support/resources';
import { replicasCaughtUp } from './support/services';
import { BROWSER_UA, foldStats } from './support/stats';

/** Visitor `i`: an address and a user agent of its own (the digest is of both). */
const visitor = (i: number) => ({
  ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  userAgent: BROWSER_UA,
});

const noon = (day: string) => new Date(`${day}T12:00:00Z`);

/**
 * Reach and overlap (CONTRACT "Statistics, second part"): distinct visitors of a set of short
 * codes from the stored day and month sketches and Redis's recent ones, on the real app.
 */
describe('GET /api/stats/reach', () => {
  const { t, owner, other, free } = useSuite({
    owner: { plan: 'Pro' },
    other: { plan: 'Pro' },
    free: { plan: 'Free' },
  });
  const reach = (user: TestUser, query: string) =>
    t.http().get(`/api/stats/reach?${query}`).set(user.auth);

  /** A counted visit of `linkId` by visitor `i` at `at` (through the recorder: it waits for Redis). */
  async function visit(user: TestUser, linkId: number, i: number, at = new Date()) {
    const counted = await t.app
      .get(VisitRecorder)
      .recordNow({ linkId, userId: user.id, method: 'GET', ...visitor(i), referer: undefined }, at);
    expect(counted).toBe(true);
  }

  const today = isoDay(Date.now());
  // calendar months: this one, the one before (M1) and the one before that (M2), both whole in range
  const m1 = addDays(`${today.slice(0, 7)}-01`, -1).slice(0, 7);
  const m2 = addDays(`${m1}-01`, -1).slice(0, 7);
  const from = `${m2}-01`;

  let a: number, b: number, c: number;
  beforeAll(async () => {
    [a, b, c] = [
      (await insertLink(t, owner.id)).id,
      (await insertLink(t, owner.id)).id,
      (await insertLink(t, owner.id)).id,
    ];
    // A: visitors 1..5 on M1's 10th; visitor 1 again on M2's 20th (whole months: month sketches)
    for (let i = 1; i <= 5; i++) await visit(owner, a, i, noon(`${m1}-10`));
    await visit(owner, a, 1, noon(`${m2}-20`));
    // C: visitor 9, two days ago; folded with the rest
    await visit(owner, c, 9, noon(addDays(today, -2)));
    await foldStats(t);
    // the sketches are read on a replica when there is one (TEST_PG_REPLICA=1)
    await replicasCaughtUp();
    // B: visitors 4..8 today, not folded (Redis's sketch of the day)
    for (let i = 4; i <= 8; i++) await visit(owner, b, i);
  });

  it('counts distinct visitors of the set and each pair’s overlap, exactly at small counts', async () => {
    const res = await reach(owner, `links=${a},${b},${c}&from=${from}&to=${today}`).expect(200);
    expect(res.body).toEqual({
      error: 0,
      data: {
        from,
        to: today,
        retention: 0,
        notice: null,
        visitors: 9,
        links: [
          { id: a, visitors: 5 },
          { id: b, visitors: 5 },
          { id: c, visitors: 1 },
        ],
        overlap: [
          { a, b, visitors: 2 },
          { a, b: c, visitors: 0 },
          { a: b, b: c, visitors: 0 },
        ],
        error: REACH_ERROR,
      },
    });
    expect(REACH_ERROR).toBeCloseTo(1.04 / Math.sqrt(16384), 6);
  });

  it('reads partial months by day, and only the days of the range', async () => {
    // from M1's 5th: A's M1 visits by day rows; M2's visit of visitor 1 left out (still in A)
    const part = await reach(owner, `links=${c},${a}&from=${m1}-05&to=${today}`).expect(200);
    expect(part.body.data).toMatchObject({
      visitors: 6,
      links: [
        { id: c, visitors: 1 },
        { id: a, visitors: 5 },
      ],
      overlap: [{ a: c, b: a, visitors: 0 }],
    });
    // only M2: visitor 1 on A
    const early = await reach(owner, `links=${a},${b}&from=${m2}-01&to=${m2}-28`).expect(200);
    expect(early.body.data).toMatchObject({
      visitors: 1,
      links: [
        { id: a, visitors: 1 },
        { id: b, visitors: 0 },
      ],
      overlap: [{ a, b, visitors: 0 }],
    });
    // today only: B's unfolded visits
    const now = await reach(owner, `links=${b}&from=${today}&to=${today}`).expect(200);
    expect(now.body.data).toMatchObject({ visitors: 5, links: [{ id: b, visitors: 5 }] });
    expect(now.body.data.overlap).toEqual([]);
  });

  it('a campaign’s links and a channel’s links, bio pages and QR codes', async () => {
    const campaign = await insertCampaign(t, owner.id);
    await t.db.query(`UPDATE links SET campaign_id = $1 WHERE id = ANY($2)`, [campaign, [a, b]]);
    const byCampaign = await reach(owner, `campaign=${campaign}&from=${from}`).expect(200);
    expect(byCampaign.body.data).toMatchObject({
      visitors: 8,
      links: [
        { id: a, visitors: 5 },
        { id: b, visitors: 5 },
      ],
      overlap: [{ a, b, visitors: 2 }],
    });

    const channel = await insertChannel(t, owner.id);
    const qr = await insertQr(t, owner.id);
    const bio = await insertLink(t, owner.id, { kind: 'bio' });
    await visit(owner, qr.linkId, 8); // visitor 8 scans the QR code (also B's)
    await visit(owner, bio.id, 20);
    await t.db.query(
      `INSERT INTO channel_items (channel_id, user_id, item_type, item_id)
       VALUES ($1, $2, 'links', $3), ($1, $2, 'qr', $4), ($1, $2, 'bio', $5)`,
      [channel, owner.id, b, qr.id, bio.id],
    );
    const byChannel = await reach(owner, `channel=${channel}`).expect(200);
    const ids = [b, qr.linkId, bio.id].sort((x, y) => x - y);
    expect(byChannel.body.data.visitors).toBe(6); // 4..8 and 20
    expect(byChannel.body.data.links.map((l: { id: number }) => l.id)).toEqual(ids);
    const overlapOf = (x: number, y: number) =>
      byChannel.body.data.overlap.find(
        (o: { a: number; b: number }) => (o.a === x && o.b === y) || (o.a === y && o.b === x),
      ).visitors;
    expect(overlapOf(b, qr.linkId)).toBe(1);
    expect(overlapOf(b, bio.id)).toBe(0);

    const empty = await insertCampaign(t, owner.id);
    expect((await reach(owner, `campaign=${empty}`).expect(200)).body.data).toMatchObject({
      visitors: 0,
      links: [],
      overlap: [],
    });
  });

  it('at 10 000 synthetic visitors: within 3 standard errors', async () => {
    // recorded through the recorder's batched path (what the redirect hands visits to), not
    // through 12 000 HTTP redirects: X has visitors 0..5999, Y 4000..9999
    const big = await createUser(t, { plan: 'Pro' });
    const [x, y] = [(await insertLink(t, big.id)).id, (await insertLink(t, big.id)).id];
    const recorder = t.app.get(VisitRecorder);
    await visit(big, x, 0); // the owner's cap (none) is known from here on
    const base = 100_000;
    for (let i = 1; i < 10_000; i++) {
      if (i < 6000)
        recorder.record({
          linkId: x,
          userId: big.id,
          method: 'GET',
          ...visitor(base + i),
          referer: undefined,
        });
      if (i >= 4000)
        recorder.record({
          linkId: y,
          userId: big.id,
          method: 'GET',
          ...visitor(base + i),
          referer: undefined,
        });
    }
    await recorder.flush();
    // visitor 0 of X is `visitor(0)`, not base + 0: give Y's range the same shape
    await visit(big, y, 0);
    await foldStats(t);
    // the sketches are read on a replica when there is one (TEST_PG_REPLICA=1)
    await replicasCaughtUp();
    const res = await reach(big, `links=${x},${y}`).expect(200);
    const { visitors, links, overlap, error } = res.body.data;
    const se = (n: number) => error * n;
    // X: 0 and base+1..base+5999 (6000); Y: 0 and base+4000..base+9999 (6001); both: 0 and 2000
    expect(Math.abs(links[0].visitors - 6000)).toBeLessThanOrEqual(3 * se(6000));
    expect(Math.abs(links[1].visitors - 6001)).toBeLessThanOrEqual(3 * se(6001));
    expect(Math.abs(visitors - 10_000)).toBeLessThanOrEqual(3 * se(10_000));
    // an overlap is |X| + |Y| − |X ∪ Y|: its error combines the three counts'
    const overlapSe = Math.sqrt(se(6000) ** 2 + se(6001) ** 2 + se(10_000) ** 2);
    expect(Math.abs(overlap[0].visitors - 2001)).toBeLessThanOrEqual(3 * overlapSe);
  }, 60_000);

  it('another user’s links, campaign or channel: 404; exactly one set; bad values: 400 naming the field', async () => {
    const theirs = await insertLink(t, other.id);
    const theirCampaign = await insertCampaign(t, other.id);
    const theirChannel = await insertChannel(t, other.id);
    expectError(
      await reach(owner, `links=${a},${theirs.id}`),
      404,
      new RegExp(`^Link ${theirs.id} not found$`),
    );
    expectError(await reach(owner, `campaign=${theirCampaign}`), 404, /^Campaign not found$/);
    expectError(await reach(owner, `channel=${theirChannel}`), 404, /^Channel not found$/);
    // a QR code's or bio page's link is not one of `links` (short links)
    const qr = await insertQr(t, owner.id);
    expectError(await reach(owner, `links=${qr.linkId}`), 404, /^Link \d+ not found$/);

    expectError(await reach(owner, ''), 400, /^links: send one of links/);
    expectError(await reach(owner, `links=${a}&campaign=1`), 400, /^campaign: send only one/);
    expectError(await reach(owner, `campaign=1&channel=1`), 400, /^channel: send only one/);
    for (const bad of ['abc', '0', '-1', '1.5', '', ',', `${a},`, '2147483648', '1e3'])
      expectError(await reach(owner, `links=${encodeURIComponent(bad)}`), 400, /^links: /);
    const many = Array.from({ length: MAX_REACH_LINKS + 1 }, (_, i) => i + 1).join(',');
    expectError(await reach(owner, `links=${many}`), 400, /^links: at most 50/);
    expectError(await reach(owner, 'campaign=x'), 400, /^campaign: /);
    expectError(await reach(owner, 'channel=0'), 400, /^channel: /);
    expectError(await reach(owner, `links=${a}&from=2023-02-30`), 400, /^from: /);
    expectError(await reach(owner, `links=${a}&to=9999-12-31`), 400, /^to: /);
    expectError(
      await reach(owner, `links=${a}&from=${today}&to=${addDays(today, -1)}`),
      400,
      /^from: /,
    );
    expectError(await reach(owner, `links=${a}&from=2020-01-01&to=2022-01-01`), 400, /^from: /);
    expectError(await reach(owner, `links=${a}&interval=day`), 400, /interval/);
    expectError(await reach(owner, `links=${a}&links=${b}`), 400, /^links: /);

    // a campaign over the cap: 400 naming it
    const huge = await insertCampaign(t, owner.id);
    await t.db.query(
      `INSERT INTO links (user_id, kind, alias, url, title, campaign_id)
       SELECT $1, 'link', 'reach' || $2::int || '-' || g, 'https://target.example/', '', $2::int
         FROM generate_series(1, $3::int) g`,
      [owner.id, huge, MAX_REACH_LINKS + 1],
    );
    expectError(await reach(owner, `campaign=${huge}`), 400, /^campaign: has more than 50/);
  });

  it('the worst case: 50 links × 400 days of dense sketches answers within 5 s', async () => {
    const heavy = await createUser(t, { plan: 'Pro' });
    const ids: number[] = [];
    for (let i = 0; i < MAX_REACH_LINKS; i++) ids.push((await insertLink(t, heavy.id)).id);
    // a dense sketch (12 KB, its largest form): registers as ~3 000 visitors leave them
    const registers = new Uint8Array(HLL_REGISTERS).map((_, r) => 1 + ((r * 7919) % 5));
    const dense = encodeDense(registers);
    const first = addDays(today, -399);
    await t.db.query(
      `INSERT INTO link_stats_daily (link_id, day, clicks, uniques, sketch)
       SELECT l, d::date, 1, 1, $2 FROM unnest($1::int[]) l,
              generate_series($3::date, $4::date, interval '1 day') d`,
      [ids, dense, first, today],
    );
    await t.db.query(
      `INSERT INTO link_stats_monthly (link_id, month, sketch)
       SELECT l, m::date, $2 FROM unnest($1::int[]) l,
              generate_series(date_trunc('month', $3::date), $4::date, interval '1 month') m`,
      [ids, dense, first, today],
    );
    await replicasCaughtUp();
    const started = Date.now();
    const res = await reach(heavy, `links=${ids.join(',')}&from=${first}&to=${today}`).expect(200);
    const ms = Date.now() - started;
    console.info(`reach: 50 links × 400 days of dense sketches in ${ms} ms`);
    expect(res.body.data.links).toHaveLength(50);
    expect(res.body.data.overlap).toHaveLength((50 * 49) / 2);
    // every link has the same sketch: each overlap is the whole of it
    const one = res.body.data.links[0].visitors;
    expect(res.body.data.visitors).toBe(one);
    expect(res.body.data.overlap[0].visitors).toBe(one);
    expect(ms).toBeLessThan(5000);
  }, 60_000);

  it('the plan’s retention raises from, as for every statistics range', async () => {
    const link = await insertLink(t, free.id);
    const res = await reach(free, `links=${link.id}&from=${addDays(today, -100)}`).expect(200);
    expect(res.body.data.from).toBe(addDays(today, -30));
    expect(res.body.data.notice).toMatch(/keeps statistics for 30 days/);
  });
});
