import { DIM, dayToIso, fieldCounts } from '../keys';
import { FoldedVisits } from './fold-listener';

/** One link's clicks on one day in a batch, with the day's unique visitors as Redis counts them. */
export interface DailyRow {
  linkId: number;
  day: string;
  clicks: number;
  uniques: number | null;
  /** the day's HyperLogLog as Redis holds it (null when Redis has none) */
  sketch: Buffer | null;
}

/** link id, day (`YYYY-MM-DD`), dimension, label, visits */
export type DimCount = [number, string, string, string, number];

const HOUR_LABEL = /^([01][0-9]|2[0-3])$/;

/** link id, hour (`YYYY-MM-DD HH:00`, UTC), visits */
export type HourCount = [number, string, number];

/** A claimed batch as read from Redis: what the apply step writes. */
export interface FoldBatch {
  id: string;
  /** the batch's link ids, as Redis holds them (for the clean-up) */
  linkIds: string[];
  rows: DailyRow[];
  dims: DimCount[];
  /** visits per link and hour (from the profiles' hour labels) */
  hours: HourCount[];
  /** the batch's visits, for the fold listener (empty without one) */
  visits: FoldedVisits[];
  clicks: number;
}

/**
 * Sums a batch's counter hashes (one per link, in `ids`' order) into daily rows and dimension
 * counts; with `withVisits`, also the visits per profile for the fold listener.
 */
export function collectBatch(
  id: string,
  ids: string[],
  hashes: Array<Record<string, string>>,
  withVisits: boolean,
): FoldBatch {
  const daily = new Map<string, DailyRow>();
  // one entry per (link, day, dimension, label): several profiles may share a label, and one
  // INSERT ... ON CONFLICT may not touch a row twice
  const dimCounts = new Map<string, DimCount>();
  const hourCounts = new Map<string, HourCount>();
  const visits: FoldedVisits[] = [];
  let clicks = 0;
  ids.forEach((linkIdText, i) => {
    const linkId = Number(linkIdText);
    for (const [field, value] of Object.entries(hashes[i] ?? {})) {
      const f = fieldCounts(field);
      if (!f) continue;
      const n = Number(value);
      const key = `${linkId}|${f.day}`;
      const row = daily.get(key) ?? {
        linkId,
        day: f.day,
        clicks: 0,
        uniques: null,
        sketch: null,
      };
      daily.set(key, row);
      if (f.clicks) {
        row.clicks += n;
        clicks += n;
        if (withVisits) visits.push(foldedVisits(linkId, f.day, n, f.dims));
      }
      for (const [dim, label] of f.dims) {
        if (dim === DIM.hour) {
          // anything but an hour (no writer makes one) is dropped rather than fail the batch
          if (!HOUR_LABEL.test(label)) continue;
          const hourKey = `${key}|${label}`;
          const entry = hourCounts.get(hourKey);
          if (entry) entry[2] += n;
          else hourCounts.set(hourKey, [linkId, `${dayToIso(f.day)} ${label}:00`, n]);
          continue;
        }
        const dimKey = `${key}|${dim}|${label}`;
        const entry = dimCounts.get(dimKey);
        if (entry) entry[4] += n;
        else dimCounts.set(dimKey, [linkId, dayToIso(f.day), dim, label, n]);
      }
    }
  });
  return {
    id,
    linkIds: ids,
    rows: [...daily.values()],
    dims: [...dimCounts.values()],
    hours: [...hourCounts.values()],
    visits,
    clicks,
  };
}

const NAMED: Record<string, 'country' | 'referrer' | 'browser' | 'os' | 'device' | 'language'> = {
  [DIM.country]: 'country',
  [DIM.referrer]: 'referrer',
  [DIM.browser]: 'browser',
  [DIM.os]: 'os',
  [DIM.device]: 'device',
  [DIM.language]: 'language',
};

function foldedVisits(
  linkId: number,
  day: string,
  count: number,
  dims: Array<[string, string]>,
): FoldedVisits {
  const v: FoldedVisits = {
    linkId,
    day: dayToIso(day),
    count,
    country: null,
    referrer: null,
    browser: null,
    os: null,
    device: null,
    language: null,
  };
  for (const [dim, label] of dims) if (NAMED[dim]) v[NAMED[dim]] = label;
  return v;
}
