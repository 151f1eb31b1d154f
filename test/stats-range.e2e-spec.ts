import { parse } from 'csv-parse/sync';

import {
  addDays,
  agentInfo,
  countryOf,
  dayKey,
  placeOfAddress,
  isoDay,
  periodStart,
  VisitRecorder,
} from '@app/stats';

import { createPlan, createUser, expectError, TestUser, useTestApp } from './support/app';
import { addLink, insertCampaign, insertDomain } from './support/links';
import { insertLink, insertQr } from './support/resources';
import { BROWSER_UA, foldStats, statsFold, statsKeys } from './support/stats';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD_UA =
  'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

interface Visitor {
  name: string;
  ip: string;
  userAgent: string;
  acceptLanguage?: string;
  referer?: string;
}

const visitor = (name: string, ip: string, userAgent: string, more: Partial<Visitor>): Visitor => ({
  name,
  ip,
  userAgent,
  ...more,
});
const A = visitor('A', '8.8.8.8', BROWSER_UA, { acceptLanguage: 'fr-FR,fr;q=0.9,en;q=0.5' });
const B = visitor('B', '1.1.1.1', IPHONE_UA, { acceptLanguage: 'de' });
const C = visitor('C', '9.9.9.9', IPAD_UA, { referer: 'https://www.linkedin.com/feed/' });
const D = visitor('D', '4.4.4.4', BROWSER_UA, { acceptLanguage: 'es' });

/** A visit the test made: the oracle the answers are checked against. */
interface Made {
  linkId: number;
  day: string;
  visitor: Visitor;
}

const noon = (day: string) => new Date(`${day}T12:00:00Z`);

/** Counts as the API lists them: label → count string, largest first, at most 10. */
function topOf(visits: Made[], labelOf: (v: Made) => string): Record<string, string> {
  const counts = new Map<string, number>();
  for (const v of visits) counts.set(labelOf(v), (counts.get(labelOf(v)) ?? 0) + 1);
  return Object.fromEntries(
    [...counts]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([k, n]) => [k, String(n)]),
  );
}

/** The expected series: every period of from..to, clicks and distinct visitor names. */
function expectedSeries(
  visits: Made[],
  from: string,
  to: string,
  interval: 'day' | 'week' | 'month',
) {
  const out: Array<{ date: string; clicks: number; uniqueClicks: number }> = [];
  const seen: Array<Set<string>> = [];
  let key = '';
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const k = interval === 'day' ? day : interval === 'month' ? day.slice(0, 7) : weekOf(day);
    if (k !== key) {
      out.push({ date: day, clicks: 0, uniqueClicks: 0 });
      seen.push(new Set());
      key = k;
    }
    for (const v of visits.filter((x) => x.day === day)) {
      out[out.length - 1].clicks++;
      seen[seen.length - 1].add(v.visitor.name);
    }
  }
  out.forEach((p, i) => (p.uniqueClicks = seen[i].size));
  return out;
}

/** Monday of a day's week, computed independently of the code under test. */
function weekOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const back = (d.getUTCDay() + 6) % 7;
  return new Date(d.getTime() - back * 86_400_000).toISOString().slice(0, 10);
}

describe('statistics over date ranges (/api/url/:id/stats, /api/qr/:id/stats, /api/stats, exports)', () => {
  const t = useTestApp();
  let proPlan: number;
  const today = isoDay(Date.now());

  beforeAll(async () => {
    const [pro] = await t.db.query(`SELECT id FROM plans WHERE NOT free ORDER BY id LIMIT 1`);
    proPlan = pro.id;
  });

  const proUser = () => createUser(t, { planId: proPlan, planType: 'lifetime' });

  /** A visit on a past day, through the recorder (the fold then stores it as it stores any day). */
  async function visitOn(made: Made[], user: TestUser, linkId: number, day: string, v: Visitor) {
    const counted = await t.app.get(VisitRecorder).recordNow(
      {
        linkId,
        userId: user.id,
        method: 'GET',
        ip: v.ip,
        userAgent: v.userAgent,
        referer: v.referer,
        acceptLanguage: v.acceptLanguage,
      },
      noon(day),
    );
    expect(counted).toBe(true);
    made.push({ linkId, day, visitor: v });
  }

  /** A visit today through the real redirector (not folded until the test folds). */
  async function visitNow(made: Made[], linkId: number, path: string, v: Visitor) {
    const req = t.http().get(path).set('User-Agent', v.userAgent).set('X-Forwarded-For', v.ip);
    if (v.acceptLanguage) req.set('Accept-Language', v.acceptLanguage);
    if (v.referer) req.set('Referer', v.referer);
    const res = await req;
    expect(res.status).toBe(302);
    made.push({ linkId, day: today, visitor: v });
  }

  /** Month sums of the links' dimension counts that differ from the sums of their stored days. */
  const monthSumMismatches = (linkIds: number[]) =>
    t.db.query(
      `SELECT * FROM (
         SELECT link_id, date_trunc('month', day)::date AS month, dim, label, SUM(count) AS n
           FROM link_stats_dims WHERE link_id = ANY($1) GROUP BY 1, 2, 3, 4) d
       FULL JOIN (SELECT link_id, month, dim, label, count AS n FROM link_stats_dims_monthly
                   WHERE link_id = ANY($1)) m USING (link_id, month, dim, label)
       WHERE d.n IS DISTINCT FROM m.n`,
      [linkIds],
    );

  const flushRecorder = () => t.app.get(VisitRecorder).flush();

  const get = (user: TestUser, path: string) => t.http().get(path).set(user.auth);

  describe('one link, visits on known days, folded and pending', () => {
    let user: TestUser;
    let link: { id: number; alias: string };
    let other: { id: number; alias: string };
    let qr: { id: number; linkId: number; alias: string };
    const made: Made[] = [];
    const from = addDays(today, -13);

    beforeAll(async () => {
      user = await proUser();
      link = await addLink(t, user, { url: 'https://example.com/range' });
      other = await addLink(t, user, { url: 'https://example.com/other' });
      qr = await insertQr(t, user.id);
      // A on the 9 days before today; B twice 5 days ago; C 2 days ago; D and A on `other`
      for (let d = 9; d >= 1; d--) await visitOn(made, user, link.id, addDays(today, -d), A);
      await visitOn(made, user, link.id, addDays(today, -5), B);
      await visitOn(made, user, link.id, addDays(today, -5), B);
      await visitOn(made, user, link.id, addDays(today, -2), C);
      await visitOn(made, user, other.id, addDays(today, -3), A);
      await visitOn(made, user, other.id, addDays(today, -3), D);
      await visitOn(made, user, qr.linkId, addDays(today, -1), A);
      await foldStats(t);
      // today, through the redirector: A (its 10th day) and B, not folded yet
      await visitNow(made, link.id, `/${link.alias}`, A);
      await visitNow(made, link.id, `/${link.alias}`, B);
      await flushRecorder();
    });

    const ofLink = (id: number) => made.filter((m) => m.linkId === id);

    async function expectLinkAnswer() {
      const res = await get(user, `/api/url/${link.id}/stats?from=${from}&to=${today}`).expect(200);
      const visits = ofLink(link.id);
      expect(res.body.error).toBe(0);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'error']);
      expect(res.body.data).toEqual({
        from,
        to: today,
        interval: 'day',
        retention: 0,
        notice: null,
        clicks: 14,
        uniqueClicks: 3,
        series: expectedSeries(visits, from, today, 'day'),
        topCountries: topOf(visits, (v) => countryOf(v.visitor.ip)),
        topReferrers: { Direct: '13', 'linkedin.com': '1' },
        topBrowsers: topOf(visits, (v) => agentInfo(v.visitor.userAgent).browser),
        topOs: topOf(visits, (v) => agentInfo(v.visitor.userAgent).os),
        topDevices: { desktop: '10', mobile: '3', tablet: '1' },
        topLanguages: { fr: '10', de: '3', Unknown: '1' },
        topCities: topOf(visits, (v) => placeOfAddress(v.visitor.ip).city),
        topRegions: topOf(visits, (v) => placeOfAddress(v.visitor.ip).region),
        topUtmSources: {},
        topUtmMediums: {},
        topUtmCampaigns: {},
        topReferrerUrls: { 'https://www.linkedin.com/feed/': '1' },
        topDeviceModels: { 'Apple iPhone': '3', 'Apple iPad': '1' },
        socialCount: { network01: 0, network02: 0, network03: 1 },
      });
      const series = res.body.data.series as Array<{ date: string; clicks: number }>;
      expect(series).toHaveLength(14);
      expect(series.slice(0, 4).every((p) => p.clicks === 0)).toBe(true); // zero-filled
      expect(series.reduce((n, p) => n + p.clicks, 0)).toBe(14);
      return res.body.data;
    }

    it('a range across folded days and today’s pending visits: every field', async () => {
      const pending = await t.redis.client.exists(statsKeys(t).pending(link.id));
      expect(pending).toBe(1); // today's visits are not folded yet
      await expectLinkAnswer();
    });

    it('the same answer once today is folded too', async () => {
      await foldStats(t);
      expect(await t.redis.client.exists(statsKeys(t).pending(link.id))).toBe(0);
      await expectLinkAnswer();
    });

    it('a visitor on 10 days of the range counts once; each day counts them once', async () => {
      const res = await get(user, `/api/url/${link.id}/stats?from=${addDays(today, -9)}`).expect(
        200,
      );
      expect(res.body.data.uniqueClicks).toBe(3); // A (10 days), B (2 days), C
      const days = res.body.data.series as Array<{ date: string; uniqueClicks: number }>;
      expect(days.map((d) => d.uniqueClicks)).toEqual(
        expectedSeries(ofLink(link.id), addDays(today, -9), today, 'day').map(
          (d) => d.uniqueClicks,
        ),
      );
      // each month touched keeps the union of its days' sketches
      const months = await t.db.query(
        `SELECT count(*)::int AS n FROM link_stats_monthly WHERE link_id = $1`,
        [link.id],
      );
      expect(months[0].n).toBe(new Set(ofLink(link.id).map((v) => v.day.slice(0, 7))).size);
      // the days of A alone: 10 clicks, 1 visitor
      const onlyA = await t.db.query(
        `SELECT count(*)::int AS n FROM link_stats_daily WHERE link_id = $1 AND sketch IS NOT NULL`,
        [link.id],
      );
      expect(onlyA[0].n).toBe(10);
      // the lifetime v3 figure stays a sum of daily uniques (unchanged meaning)
      const v3 = await get(user, `/api/url/${link.id}`).expect(200);
      expect(v3.body.data).toMatchObject({ clicks: 14, uniqueClicks: 13 });
      expect(v3.body.data.topDevices).toBeUndefined();
    });

    it.each(['day', 'week', 'month'] as const)(
      'interval=%s: every period zero-filled, distinct visitors per period, summing to clicks',
      async (interval) => {
        const start = addDays(today, -60);
        const res = await get(
          user,
          `/api/url/${link.id}/stats?from=${start}&to=${today}&interval=${interval}`,
        ).expect(200);
        const expected = expectedSeries(ofLink(link.id), start, today, interval);
        expect(res.body.data).toMatchObject({
          from: start,
          to: today,
          interval,
          clicks: 14,
          uniqueClicks: 3,
        });
        expect(res.body.data.series).toEqual(expected);
        // labelled by the period's first day within the range
        for (const p of res.body.data.series.slice(1))
          expect(p.date).toBe(periodStart(p.date, interval));
        expect(res.body.data.series[0].date).toBe(start);
      },
    );

    it('the default range is the last 30 days by day', async () => {
      const res = await get(user, `/api/url/${link.id}/stats`).expect(200);
      expect(res.body.data).toMatchObject({
        from: addDays(today, -29),
        to: today,
        interval: 'day',
        clicks: 14,
      });
      expect(res.body.data.series).toHaveLength(30);
    });

    it('a range without visits is all zeros', async () => {
      const res = await get(
        user,
        `/api/url/${link.id}/stats?from=${addDays(today, -40)}&to=${addDays(today, -30)}`,
      ).expect(200);
      expect(res.body.data).toMatchObject({
        clicks: 0,
        uniqueClicks: 0,
        topCountries: {},
        topDevices: {},
        topLanguages: {},
        socialCount: { network01: 0, network02: 0, network03: 0 },
      });
      expect(res.body.data.series).toHaveLength(11);
    });

    it('a QR code’s scans over a range (its short link)', async () => {
      const res = await get(user, `/api/qr/${qr.id}/stats?from=${from}`).expect(200);
      expect(res.body.data).toMatchObject({
        clicks: 1,
        uniqueClicks: 1,
        topDevices: { desktop: '1' },
        topLanguages: { fr: '1' },
      });
      expect(res.body.data.series.find((p: { clicks: number }) => p.clicks)).toEqual({
        date: addDays(today, -1),
        clicks: 1,
        uniqueClicks: 1,
      });
    });

    it('the whole account: totals over every short code, visitors of several links once, topLinks', async () => {
      const res = await get(user, `/api/stats?from=${from}`).expect(200);
      const all = made;
      expect(res.body.data).toMatchObject({
        from,
        to: today,
        interval: 'day',
        clicks: 17,
        uniqueClicks: 4, // A, B, C, D: A visited all three
        series: expectedSeries(all, from, today, 'day'),
        topDevices: { desktop: '13', mobile: '3', tablet: '1' },
        topLanguages: { fr: '12', de: '3', es: '1', Unknown: '1' },
      });
      expect(res.body.data.topLinks).toEqual([
        { id: link.id, alias: link.alias, shorturl: `http://short.test/${link.alias}`, clicks: 14 },
        {
          id: other.id,
          alias: other.alias,
          shorturl: `http://short.test/${other.alias}`,
          clicks: 2,
        },
      ]);
      // a narrower range: only `other`'s day
      const day = addDays(today, -3);
      const narrow = await get(user, `/api/stats?from=${day}&to=${day}`).expect(200);
      expect(narrow.body.data).toMatchObject({ clicks: 3, uniqueClicks: 2 });
      expect(narrow.body.data.topLinks.map((l: { id: number }) => l.id)).toEqual([
        other.id,
        link.id,
      ]);
      expect(narrow.body.data.topLinks.map((l: { clicks: number }) => l.clicks)).toEqual([2, 1]);
    });

    it('another user’s link or QR code is a 404, and so is a QR code’s link id on the link route', async () => {
      const stranger = await proUser();
      for (const path of [
        `/api/url/${link.id}/stats`,
        `/api/qr/${qr.id}/stats`,
        `/api/url/${link.id}/stats/export`,
        `/api/url/${qr.linkId}/stats`,
        `/api/url/999999999/stats`,
      ])
        expectError(await get(stranger, path), 404, /not found/);
      expectError(await get(user, `/api/url/${qr.linkId}/stats`), 404, /Link not found/);
      const empty = await get(stranger, '/api/stats').expect(200);
      expect(empty.body.data).toMatchObject({ clicks: 0, uniqueClicks: 0, topLinks: [] });
    });

    it('bad from, to, interval, reversed or over-long ranges: 400 naming the field', async () => {
      const cases: Array<[string, RegExp]> = [
        ['from=2026-13-01', /^from: must be a date YYYY-MM-DD/],
        ['from=2026-02-30', /^from: /],
        ['from=yesterday', /^from: /],
        ['to=2026-1-1', /^to: must be a date/],
        ['interval=hourly', /^interval: must be one of day, week, month, hour$/],
        [
          `interval=hour&from=${addDays(today, -7)}`,
          /^interval: hour takes ranges of at most 7 days/,
        ],
        ['interval=', /^interval: /],
        [`from=${today}&to=${addDays(today, -1)}`, /^from: must not be after to/],
        [`from=${addDays(today, -400)}`, /^from: .*spans 401 days; at most 400/],
        ['from=2026-01-01&from=2026-01-02', /^from: /],
        ['limit=5', /^limit: unknown field/],
      ];
      for (const path of [
        `/api/url/${link.id}/stats`,
        `/api/qr/${qr.id}/stats`,
        '/api/stats',
        `/api/url/${link.id}/stats/export`,
      ])
        for (const [query, message] of cases)
          expectError(await get(user, `${path}?${query}`), 400, message);
      // exactly 400 days is fine
      await get(user, `/api/url/${link.id}/stats?from=${addDays(today, -399)}`).expect(200);
      expectError(await get(user, `/api/url/abc/stats`), 400, /^id: /);
    });

    it('days before 2000 or after next year: 400 naming the field within 1 s, on every range route', async () => {
      const free = await createUser(t); // the case: a Free plan key
      const last = `${Number(today.slice(0, 4)) + 1}-12-31`;
      const bounds = new RegExp(`: must be a day from 2000-01-01 to ${last}$`);
      const cases: Array<[string, 'from' | 'to']> = [
        ['from=9999-12-31&to=9999-12-31', 'to'],
        ['from=9999-12-31', 'from'],
        ['from=0000-01-01&to=0000-01-01', 'to'],
        ['from=0000-01-01', 'from'],
        ['from=1999-12-31', 'from'],
        [`to=${addDays(last, 1)}`, 'to'],
      ];
      for (const [who, paths] of [
        [free, ['/api/stats']],
        [
          user,
          [
            `/api/url/${link.id}/stats`,
            `/api/qr/${qr.id}/stats`,
            '/api/stats',
            `/api/url/${link.id}/stats/export`,
          ],
        ],
      ] as const)
        for (const path of paths)
          for (const [query, field] of cases) {
            const started = Date.now();
            const res = await get(who, `${path}?${query}`);
            expectError(res, 400, new RegExp(`^${field}${bounds.source}`));
            expect([path, query, Date.now() - started < 1000]).toEqual([path, query, true]);
          }
      // the api still answers, and the bounds themselves are days like any other
      await t.http().get('/health').expect(200);
      await get(user, `/api/stats?from=2000-01-01&to=2000-01-31`).expect(200);
      await get(user, `/api/url/${link.id}/stats?from=${addDays(last, -9)}&to=${last}`).expect(200);
    });

    it('the daily-stats export: one row per day and dimension value, equal to the API’s numbers', async () => {
      await foldStats(t);
      const res = await get(
        user,
        `/api/url/${link.id}/stats/export?from=${from}&to=${today}`,
      ).expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[^"]+\.csv"$/);
      const rows: Array<Record<string, string>> = parse(res.text, { columns: true });
      expect(Object.keys(rows[0])).toEqual(['date', 'dimension', 'value', 'clicks']);
      const api = (await get(user, `/api/url/${link.id}/stats?from=${from}`).expect(200)).body.data;
      // per day: the country rows add up to the series' clicks
      for (const point of api.series as Array<{ date: string; clicks: number }>) {
        const n = rows
          .filter((r) => r.date === point.date && r.dimension === 'country')
          .reduce((s, r) => s + Number(r.clicks), 0);
        expect({ date: point.date, clicks: n }).toEqual({ date: point.date, clicks: point.clicks });
      }
      // per dimension: the rows add up to the top maps
      const sum = (dimension: string) => {
        const m = new Map<string, number>();
        for (const r of rows.filter((x) => x.dimension === dimension))
          m.set(r.value, (m.get(r.value) ?? 0) + Number(r.clicks));
        return Object.fromEntries([...m].map(([k, n]) => [k, String(n)]));
      };
      expect(sum('device')).toEqual(api.topDevices);
      expect(sum('language')).toEqual(api.topLanguages);
      expect(sum('country')).toEqual(api.topCountries);
      expect(sum('referrer')).toEqual(api.topReferrers);
      expect(sum('browser')).toEqual(api.topBrowsers);
      expect(sum('os')).toEqual(api.topOs);
      expect(sum('social')).toEqual({ network03: '1' });
      // in order: by day
      expect(rows.map((r) => r.date)).toEqual([...rows.map((r) => r.date)].sort());
    });
  });

  describe('long ranges: whole months from their sums, the other days one by one', () => {
    let user: TestUser;
    let link: { id: number; alias: string };
    const made: Made[] = [];
    const visitors = [A, B, C, D];

    beforeAll(async () => {
      user = await proUser();
      link = await addLink(t, user, { url: 'https://example.com/long' });
      // a visit every 3rd day over 130 days, by A, B, C, D in turn, and a second one on each
      // 7th day: every month of the range has its own mix
      for (let d = 130, i = 0; d >= 0; d -= 3, i++) {
        const day = addDays(today, -d);
        await visitOn(made, user, link.id, day, visitors[i % 4]);
        if (d % 7 === 0) await visitOn(made, user, link.id, day, visitors[(i + 1) % 4]);
      }
      await foldStats(t);
    });

    const tops = (visits: Made[]) => ({
      topCountries: topOf(visits, (v) => countryOf(v.visitor.ip)),
      topBrowsers: topOf(visits, (v) => agentInfo(v.visitor.userAgent).browser),
      topOs: topOf(visits, (v) => agentInfo(v.visitor.userAgent).os),
    });

    it('month sums equal the sums of their days', async () => {
      const mismatched = await monthSumMismatches([link.id]);
      expect(mismatched).toEqual([]);
      const months = await t.db.query(
        `SELECT count(DISTINCT month)::int AS n FROM link_stats_dims_monthly WHERE link_id = $1`,
        [link.id],
      );
      expect(months[0].n).toBe(new Set(made.map((v) => v.day.slice(0, 7))).size);
    });

    it('any range, by day, week or month, counts each day in it once', async () => {
      const ranges: Array<[number, number]> = [
        [130, 0], // the whole history: whole months and today's month
        [100, 20], // two partial months around whole ones
        [75, 50], // within a month or two
        [61, 58],
        [200, 0], // before the first visit
      ];
      for (const [back, forth] of ranges) {
        const from = addDays(today, -back);
        const to = addDays(today, -forth);
        const visits = made.filter((v) => v.day >= from && v.day <= to);
        for (const interval of ['day', 'week', 'month'] as const) {
          const res = await get(
            user,
            `/api/url/${link.id}/stats?from=${from}&to=${to}&interval=${interval}`,
          ).expect(200);
          expect({ from, to, interval, ...res.body.data }).toMatchObject({
            from,
            to,
            interval,
            clicks: visits.length,
            uniqueClicks: new Set(visits.map((v) => v.visitor.name)).size,
            // each period too: a whole month's from its month sketch
            series: expectedSeries(visits, from, to, interval),
            ...tops(visits),
          });
        }
      }
      // the v3 lifetime read sums the months
      const v3 = await get(user, `/api/url/${link.id}`).expect(200);
      expect(v3.body.data).toMatchObject({ clicks: made.length, ...tops(made) });
    });
  });

  describe('unique visitors: the union of the days’ sketches', () => {
    let user: TestUser;

    beforeAll(async () => {
      user = await proUser();
    });

    async function record(linkId: number, day: string, ips: string[]) {
      const recorder = t.app.get(VisitRecorder);
      for (let i = 0; i < ips.length; i += 200)
        await Promise.all(
          ips
            .slice(i, i + 200)
            .map((ip) =>
              recorder.recordNow(
                { linkId, userId: user.id, method: 'GET', ip, userAgent: BROWSER_UA, referer: '' },
                noon(day),
              ),
            ),
        );
    }
    const ips = (n: number, tag: number) =>
      Array.from({ length: n }, (_, i) => `10.${tag}.${i >> 8}.${i & 255}`);

    it('2000 distinct visitors over 5 days count within the HLL error, exactly as Redis PFMERGE counts them', async () => {
      const { id } = await insertLink(t, user.id);
      const days = [1, 2, 3, 4, 5].map((d) => addDays(today, -d));
      for (const [i, day] of days.entries()) await record(id, day, ips(400, i + 1));
      await foldStats(t);
      const res = await get(user, `/api/url/${id}/stats?from=${days[4]}`).expect(200);
      const { clicks, uniqueClicks, series } = res.body.data;
      expect(clicks).toBe(2000);
      expect(Math.abs(uniqueClicks - 2000) / 2000).toBeLessThan(0.0243); // 3 × 0.81 %
      // the days' live sketches in Redis, merged by Redis itself
      const keys = days.map((d) => statsKeys(t).visitors(id, dayKey(noon(d))));
      expect(await t.redis.client.pfcount(...keys)).toBe(uniqueClicks);
      for (const [i, day] of days.entries()) {
        const point = series.find((p: { date: string }) => p.date === day);
        expect(point.uniqueClicks).toBe(await t.redis.client.pfcount(keys[i]));
      }
    });

    it('a day Redis keeps dense is stored in the smaller sparse encoding, which Redis reads back to the same count', async () => {
      const { id } = await insertLink(t, user.id);
      const day = addDays(today, -1);
      await record(id, day, ips(3000, 20));
      const live = statsKeys(t).visitors(id, dayKey(noon(day)));
      expect((await t.redis.client.getBuffer(live))?.[4]).toBe(0); // dense in Redis
      await foldStats(t);
      const [row] = await t.db.query(
        `SELECT sketch, uniques::int FROM link_stats_daily WHERE link_id = $1`,
        [id],
      );
      expect(row.sketch[4]).toBe(1); // sparse
      expect(row.sketch.length).toBeLessThan(12304 / 2);
      const copy = `${t.redis.prefix}:test:sketch:${id}`;
      await t.redis.client.set(copy, row.sketch);
      expect(await t.redis.client.pfcount(copy)).toBe(await t.redis.client.pfcount(live));
      expect(await t.redis.client.pfcount(copy)).toBe(row.uniques);
      await t.redis.client.del(copy);
      const res = await get(user, `/api/url/${id}/stats?from=${day}&to=${day}`).expect(200);
      expect(res.body.data.uniqueClicks).toBe(row.uniques);
    });

    it('the same 400 visitors on 5 days count about 400, not 2000', async () => {
      const { id } = await insertLink(t, user.id);
      const same = ips(400, 9);
      const days = [1, 2, 3, 4, 5].map((d) => addDays(today, -d));
      for (const day of days) await record(id, day, same);
      await foldStats(t);
      const res = await get(user, `/api/url/${id}/stats?from=${days[4]}&interval=week`).expect(200);
      expect(res.body.data.clicks).toBe(2000);
      expect(Math.abs(res.body.data.uniqueClicks - 400) / 400).toBeLessThan(0.05);
      for (const p of res.body.data.series as Array<{ clicks: number; uniqueClicks: number }>)
        if (p.clicks) expect(Math.abs(p.uniqueClicks - 400) / 400).toBeLessThan(0.05);
    });
  });

  it('an account of many links: pending visits of the few visited lately are all counted', async () => {
    const user = await proUser();
    const ids: number[] = [];
    for (let i = 0; i < 80; i++) ids.push((await insertLink(t, user.id)).id);
    const visited = [ids[3], ids[40], ids[79]];
    for (const [k, linkId] of visited.entries())
      for (let n = 0; n <= k; n++)
        await t.app.get(VisitRecorder).recordNow({
          linkId,
          userId: user.id,
          method: 'GET',
          ip: `8.8.8.${n}`,
          userAgent: BROWSER_UA,
          referer: undefined,
        });
    // claimed by a fold that has not applied it yet: still counted once
    await statsFold(t).claimOnly();
    await t.app.get(VisitRecorder).recordNow({
      linkId: ids[3],
      userId: user.id,
      method: 'GET',
      ip: '8.8.4.4',
      userAgent: BROWSER_UA,
      referer: undefined,
    });
    const res = await get(user, `/api/stats?from=${today}`).expect(200);
    expect(res.body.data).toMatchObject({ clicks: 7, uniqueClicks: 4 });
    expect(
      res.body.data.topLinks.map((l: { id: number; clicks: number }) => [l.id, l.clicks]),
    ).toEqual([
      [ids[79], 3],
      [ids[40], 2],
      [ids[3], 2],
    ]);
    await foldStats(t);
    const after = await get(user, `/api/stats?from=${today}`).expect(200);
    expect(after.body.data).toMatchObject({ clicks: 7, uniqueClicks: 4 });
  });

  describe('retention', () => {
    const oldDay = addDays(today, -40);
    const recentDay = addDays(today, -10);

    async function withOldAndRecent(user: TestUser): Promise<number> {
      const { id } = await insertLink(t, user.id);
      for (const day of [oldDay, recentDay])
        expect(
          await t.app.get(VisitRecorder).recordNow(
            {
              linkId: id,
              userId: user.id,
              method: 'GET',
              ip: '8.8.8.8',
              userAgent: BROWSER_UA,
              referer: undefined,
            },
            noon(day),
          ),
        ).toBe(true);
      return id;
    }
    const days = async (linkId: number) =>
      (
        await t.db.query(
          `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM link_stats_daily WHERE link_id = $1 ORDER BY day`,
          [linkId],
        )
      ).map((r: { day: string }) => r.day);
    const dimDays = async (linkId: number) =>
      Number(
        (
          await t.db.query(
            `SELECT count(DISTINCT day)::int AS n FROM link_stats_dims WHERE link_id = $1`,
            [linkId],
          )
        )[0].n,
      );

    it('answers leave out days older than the plan keeps: from is raised and says so', async () => {
      const free = await createUser(t); // the Free plan keeps 30 days
      const id = await withOldAndRecent(free);
      await foldStats(t);
      const res = await get(free, `/api/url/${id}/stats?from=${addDays(today, -60)}`).expect(200);
      expect(res.body.data).toMatchObject({
        from: addDays(today, -30),
        to: today,
        retention: 30,
        clicks: 1,
        uniqueClicks: 1,
      });
      expect(res.body.data.notice).toBe(
        `from raised to ${addDays(today, -30)}: your plan keeps statistics for 30 days`,
      );
      expect(res.body.data.series).toHaveLength(31);
      // entirely older than kept: nothing
      const gone = await get(
        free,
        `/api/url/${id}/stats?from=${addDays(oldDay, -1)}&to=${oldDay}`,
      ).expect(200);
      expect(gone.body.data).toMatchObject({ clicks: 0, series: [], from: addDays(today, -30) });
      // within what is kept: no notice
      const inside = await get(free, `/api/url/${id}/stats?from=${recentDay}`).expect(200);
      expect(inside.body.data).toMatchObject({ from: recentDay, notice: null, clicks: 1 });
    });

    it('the fold job prunes by the effective plan: expired paid plans fall back to Free, admins keep everything', async () => {
      const free = await createUser(t);
      const admin = await createUser(t, { admin: true }); // on the Free plan, but an admin
      const pro = await proUser();
      const expired = await createUser(t, {
        planId: proPlan,
        planType: 'monthly',
        expires: new Date(Date.now() - 86_400_000),
      });
      const keeps7 = await createUser(t, {
        planId: await createPlan(t, { retention: 7 }),
        planType: 'lifetime',
      });
      const ids = {
        free: await withOldAndRecent(free),
        admin: await withOldAndRecent(admin),
        pro: await withOldAndRecent(pro),
        expired: await withOldAndRecent(expired),
        keeps7: await withOldAndRecent(keeps7),
      };
      await foldStats(t);
      for (const id of Object.values(ids)) expect(await days(id)).toEqual([oldDay, recentDay]);
      await statsFold(t).applyRetention();
      expect(await days(ids.free)).toEqual([recentDay]);
      expect(await days(ids.expired)).toEqual([recentDay]);
      expect(await days(ids.keeps7)).toEqual([]);
      expect(await days(ids.admin)).toEqual([oldDay, recentDay]);
      expect(await days(ids.pro)).toEqual([oldDay, recentDay]);
      const months = async (linkId: number) =>
        (
          await t.db.query(
            `SELECT to_char(month, 'YYYY-MM') AS m FROM link_stats_monthly WHERE link_id = $1`,
            [linkId],
          )
        ).map((r: { m: string }) => r.m);
      expect(await months(ids.keeps7)).not.toContain(oldDay.slice(0, 7));
      expect(await months(ids.admin)).toContain(oldDay.slice(0, 7));
      expect(await dimDays(ids.free)).toBe(1);
      expect(await dimDays(ids.admin)).toBe(2);
      // the month sums lose what was pruned: each still the sum of its stored days
      const mismatched = await monthSumMismatches(Object.values(ids));
      expect(mismatched).toEqual([]);
      const monthRows = await t.db.query(
        `SELECT count(*)::int AS n FROM link_stats_dims_monthly WHERE link_id = $1`,
        [ids.keeps7],
      );
      expect(monthRows[0].n).toBe(0);
      // lifetime totals stay
      const [total] = await t.db.query(
        `SELECT clicks::int FROM link_stats_total WHERE link_id = $1`,
        [ids.free],
      );
      expect(total.clicks).toBe(2);
      // an admin's answers are not clamped either
      const res = await get(
        admin,
        `/api/url/${ids.admin}/stats?from=${addDays(today, -60)}`,
      ).expect(200);
      expect(res.body.data).toMatchObject({ retention: 0, notice: null, clicks: 2 });
      const exp = await get(expired, `/api/stats?from=${addDays(today, -60)}`).expect(200);
      expect(exp.body.data).toMatchObject({ retention: 30, from: addDays(today, -30), clicks: 1 });
    });
  });

  describe('CSV export of links', () => {
    it('without the plan’s export feature: 403 on both exports', async () => {
      const free = await createUser(t);
      const { id } = await insertLink(t, free.id);
      expectError(await get(free, '/api/urls/export'), 403, /"export"/);
      expectError(await get(free, `/api/url/${id}/stats/export`), 403, /"export"/);
    });

    it('every link, parsed back by a CSV parser, equals the API’s numbers; formula-looking cells are defused', async () => {
      const user = await proUser();
      const domain = await insertDomain(t, user.id);
      const campaign = await insertCampaign(t, user.id);
      const titles = [
        '=HYPERLINK("http://evil.example","x")',
        '+1+2',
        '-2+3',
        '@SUM(A1:A2)',
        '\tTabbed',
        '\rReturn',
        '\uFF1DFULLWIDTH()',
        'Plain, "quoted" title',
        'multi\nline',
      ];
      const links: Array<{ id: number; alias: string }> = [];
      for (const [i, title] of titles.entries())
        links.push(
          await addLink(t, user, {
            url: `https://example.com/${i}`,
            title,
            ...(i === 0 ? { domain: domain.id, campaign } : {}),
          }),
        );
      for (const ip of ['8.8.8.8', '8.8.4.4', '8.8.8.8'])
        await t.app.get(VisitRecorder).recordNow({
          linkId: links[1].id,
          userId: user.id,
          method: 'GET',
          ip,
          userAgent: BROWSER_UA,
          referer: undefined,
        });
      await foldStats(t);

      const res = await get(user, '/api/urls/export').expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="links.csv"');
      const rows: Array<Record<string, string>> = parse(res.text, { columns: true });
      expect(Object.keys(rows[0])).toEqual([
        'id',
        'alias',
        'shorturl',
        'longurl',
        'title',
        'domain',
        'campaign',
        'clicks',
        'uniqueClicks',
        'date',
      ]);
      const list = (await get(user, '/api/urls?limit=100').expect(200)).body.data.urls;
      expect(rows).toHaveLength(list.length);
      expect(rows.map((r) => Number(r.id))).toEqual(list.map((l: { id: number }) => l.id));
      for (const [i, item] of list.entries()) {
        const row = rows[i];
        const k = links.findIndex((l) => l.id === item.id);
        const title = titles[k];
        expect(row).toEqual({
          id: String(item.id),
          alias: item.alias,
          shorturl: item.shorturl,
          longurl: item.longurl,
          title: /^[=+\-@\t\r\uFF1D]/.test(title) ? `'${title}` : title,
          domain: k === 0 ? domain.host : '',
          campaign: k === 0 ? String(campaign) : '',
          clicks: String(item.clicks),
          uniqueClicks: String(item.uniqueClicks),
          date: item.date,
        });
      }
      expect(rows.find((r) => Number(r.id) === links[1].id)).toMatchObject({
        clicks: '3',
        uniqueClicks: '2',
      });
      expect(rows.find((r) => Number(r.id) === links[0].id)?.shorturl).toBe(
        `${domain.url}/${links[0].alias}`,
      );
      // no cell starts with a formula character
      for (const r of rows) for (const v of Object.values(r)) expect(v).not.toMatch(/^[=+@\t\r]/);
    });

    it('a user without links gets the header alone', async () => {
      const user = await proUser();
      const res = await get(user, '/api/urls/export').expect(200);
      expect(res.text).toBe(
        'id,alias,shorturl,longurl,title,domain,campaign,clicks,uniqueClicks,date\n',
      );
    });
  });

  it('the OpenAPI document describes every route, query parameter and answer', async () => {
    const { paths, components } = (await t.http().get('/docs-json').expect(200)).body;
    for (const path of ['/api/url/{id}/stats', '/api/qr/{id}/stats', '/api/stats']) {
      const op = paths[path].get;
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
        (path === '/api/stats'
          ? ['from', 'interval', 'to']
          : ['from', 'id', 'interval', 'to']
        ).sort(),
      );
      expect(op.responses['200'].content['application/json'].schema).toBeDefined();
      for (const status of ['400', '401', '429']) expect(op.responses[status]).toBeDefined();
    }
    expect(paths['/api/url/{id}/stats'].get.responses['404']).toBeDefined();
    const view = components.schemas.RangeStatsView.properties;
    for (const field of [
      'from',
      'to',
      'interval',
      'retention',
      'notice',
      'clicks',
      'uniqueClicks',
      'series',
      'topCountries',
      'topReferrers',
      'topBrowsers',
      'topOs',
      'topDevices',
      'topLanguages',
      'topCities',
      'topRegions',
      'topUtmSources',
      'topUtmMediums',
      'topUtmCampaigns',
      'topReferrerUrls',
      'topDeviceModels',
      'socialCount',
    ])
      expect({ field, documented: Boolean(view[field]) }).toEqual({ field, documented: true });
    expect(components.schemas.AccountStatsView).toBeDefined();
    for (const path of ['/api/urls/export', '/api/url/{id}/stats/export']) {
      const op = paths[path].get;
      expect(op.responses['200'].content['text/csv']).toBeDefined();
      expect(op.responses['403']).toBeDefined();
    }
    expect(
      paths['/api/url/{id}/stats/export'].get.parameters.map((p: { name: string }) => p.name),
    ).toEqual(expect.arrayContaining(['id', 'from', 'to']));
  });
});
