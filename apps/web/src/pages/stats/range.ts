/**
 * The date range of the statistics pages: a preset (the last 7, 30 or 90 UTC days, today
 * included) or a custom `from` / `to`, and the series' interval. The API takes `from` / `to` as
 * UTC days (`YYYY-MM-DD`, both included) and `interval` (`day`, `week`, `month`); it answers the
 * range it used (`from` is raised to what the plan keeps), which is what the page shows.
 *
 * The range lives in the address's query (`?range=7&interval=week`, `?range=custom&from=…&to=…`)
 * so that a reload or a shared address shows the same range.
 */

export type Interval = 'day' | 'week' | 'month';
export type Preset = '7' | '30' | '90' | 'custom';

export const PRESETS: Array<{ value: Preset; name: string }> = [
  { value: '7', name: 'Last 7 days' },
  { value: '30', name: 'Last 30 days' },
  { value: '90', name: 'Last 90 days' },
  { value: 'custom', name: 'Custom dates' },
];

export const INTERVALS: Array<{ value: Interval; name: string }> = [
  { value: 'day', name: 'Day' },
  { value: 'week', name: 'Week' },
  { value: 'month', name: 'Month' },
];

export interface Range {
  preset: Preset;
  /** YYYY-MM-DD, only for `custom` (presets are computed from today when asked) */
  from: string;
  to: string;
  interval: Interval;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Today as a UTC day. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** `day` plus `n` days (UTC). */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The days a range asks the API for: a preset's last n days, or the custom ones. */
export function queryOf(range: Range): { from: string; to: string; interval: Interval } {
  if (range.preset === 'custom')
    return { from: range.from, to: range.to, interval: range.interval };
  const to = today();
  return { from: addDays(to, 1 - Number(range.preset)), to, interval: range.interval };
}

/** The range the address's query names, else the API's default (the last 30 days, by day). */
export function rangeFromSearch(search: string): Range {
  const q = new URLSearchParams(search);
  const interval =
    (['day', 'week', 'month'] as const).find((i) => i === q.get('interval')) ?? 'day';
  const preset = PRESETS.find((p) => p.value === q.get('range'))?.value ?? '30';
  const from = q.get('from') ?? '';
  const to = q.get('to') ?? '';
  if (preset === 'custom' && DAY.test(from) && DAY.test(to)) return { preset, from, to, interval };
  if (preset === 'custom') return customOf({ preset: '30', from, to, interval });
  return { preset, from: '', to: '', interval };
}

/** A range as the address's query (without the leading `?`; empty for the default range). */
export function searchOf(range: Range): string {
  if (range.preset === '30' && range.interval === 'day') return '';
  const q = new URLSearchParams({ range: range.preset });
  if (range.preset === 'custom') {
    q.set('from', range.from);
    q.set('to', range.to);
  }
  if (range.interval !== 'day') q.set('interval', range.interval);
  return q.toString();
}

/** The custom range that starts as `range` shows now (switching from a preset to custom dates). */
export function customOf(range: Range): Range {
  const { from, to } = queryOf(range);
  return { preset: 'custom', from, to, interval: range.interval };
}

/** A UTC day for people: `1 Nov 2026` (in their locale's order). */
export function formatDay(day: string, withYear = true): string {
  const d = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return day;
  return d.toLocaleDateString(undefined, {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: withYear ? 'numeric' : undefined,
  });
}

/** `1 Nov – 28 Nov 2026` (the year once when both days share it). */
export function formatRange(from: string, to: string): string {
  if (from === to) return formatDay(from);
  const sameYear = from.slice(0, 4) === to.slice(0, 4);
  return `${formatDay(from, !sameYear)} – ${formatDay(to)}`;
}

/** A series point's label: the day, the week starting on it, or its month. */
export function formatPeriod(day: string, interval: Interval): string {
  if (interval === 'month') {
    const d = new Date(`${day}T00:00:00Z`);
    return Number.isNaN(d.getTime())
      ? day
      : d.toLocaleDateString(undefined, { timeZone: 'UTC', month: 'long', year: 'numeric' });
  }
  if (interval === 'week') return `Week of ${formatDay(day)}`;
  return formatDay(day);
}

/** A count for people (`12,345`). */
export function formatCount(n: number): string {
  return n.toLocaleString();
}
