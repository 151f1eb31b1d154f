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
 * Sums a batch's counter hashes (one per link, in `ids`' order, each as HGETALL answers it: field,
 * value, field, value, ...) into daily rows and dimension counts; with `withVisits`, also the
 * visits per profile for the fold listener. A link's fields are all in its hash, so each link is
 * summed on its own (`LinkDay`), which keeps the fold's client work per link small.
 */
export function collectBatch(
  id: string,
  ids: string[],
  hashes: string[][],
  withVisits: boolean,
): FoldBatch {
  const rows: DailyRow[] = [];
  const dims: DimCount[] = [];
  const hours: HourCount[] = [];
  const visits: FoldedVisits[] = [];
  let clicks = 0;
  const days: LinkDay[] = [];
  ids.forEach((linkIdText, i) => {
    const linkId = Number(linkIdText);
    const hash = hashes[i] ?? [];
    days.length = 0;
    for (let j = 0; j + 1 < hash.length; j += 2) {
      const f = fieldCounts(hash[j]);
      if (!f) continue;
      const n = Number(hash[j + 1]);
      let day = days.find((d) => d.row.day === f.day);
      if (!day) {
        day = new LinkDay(linkId, f.day);
        days.push(day);
      }
      if (f.clicks) {
        day.row.clicks += n;
        clicks += n;
        if (withVisits) visits.push(foldedVisits(linkId, day.iso, n, f.dims));
      }
      for (const [dim, label] of f.dims) {
        // anything but an hour (no writer makes one) is dropped rather than fail the batch
        if (dim !== DIM.hour) day.add(dim, label, n);
        else if (HOUR_LABEL.test(label)) day.addHour(label, n);
      }
    }
    for (const day of days) {
      rows.push(day.row);
      for (const d of day.dims) dims.push(d);
      for (const h of day.hours) hours.push(h);
    }
  });
  return { id, linkIds: ids, rows, dims, hours, visits, clicks };
}

/** Dimension counts of a link-day searched in turn up to this many; a Map past it. */
const SCAN_MAX = 32;

/**
 * One link's counts of one day while its hash is summed: one entry per (dimension, label), as
 * several profiles may share a label and one INSERT ... ON CONFLICT may not touch a row twice.
 * A long-tail link-day has a few profiles, so its entries are found by a scan (no key strings to
 * build and hash); a busy one gets a Map.
 */
class LinkDay {
  readonly row: DailyRow;
  /** `YYYY-MM-DD` */
  readonly iso: string;
  readonly dims: DimCount[] = [];
  readonly hours: HourCount[] = [];
  private index: Map<string, DimCount> | null = null;

  constructor(linkId: number, day: string) {
    this.row = { linkId, day, clicks: 0, uniques: null, sketch: null };
    this.iso = dayToIso(day);
  }

  add(dim: string, label: string, n: number): void {
    if (this.index) {
      const key = `${dim}|${label}`;
      const entry = this.index.get(key);
      if (entry) entry[4] += n;
      else this.index.set(key, this.push(dim, label, n));
      return;
    }
    for (const d of this.dims) {
      if (d[2] === dim && d[3] === label) {
        d[4] += n;
        return;
      }
    }
    this.push(dim, label, n);
    if (this.dims.length > SCAN_MAX)
      this.index = new Map(this.dims.map((d) => [`${d[2]}|${d[3]}`, d]));
  }

  /** `hour`: `00`…`23` */
  addHour(hour: string, n: number): void {
    const at = `${this.iso} ${hour}:00`;
    const entry = this.hours.find((h) => h[1] === at);
    if (entry) entry[2] += n;
    else this.hours.push([this.row.linkId, at, n]);
  }

  private push(dim: string, label: string, n: number): DimCount {
    const entry: DimCount = [this.row.linkId, this.iso, dim, label, n];
    this.dims.push(entry);
    return entry;
  }
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
  /** `YYYY-MM-DD` */
  day: string,
  count: number,
  dims: Array<[string, string]>,
): FoldedVisits {
  const v: FoldedVisits = {
    linkId,
    day,
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
