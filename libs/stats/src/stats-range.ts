import { InvalidFieldError } from '@app/common';

/**
 * Date ranges of statistics reads: parsing `from` / `to` / `interval`, the retention clamp, and
 * the periods of a series. Days are UTC calendar days written `YYYY-MM-DD`; pure functions.
 */

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The longest range a read may ask for, in days (both ends included). */
export const MAX_RANGE_DAYS = 400;
/** The range read when neither end is given: the last 30 days, today included. */
export const DEFAULT_RANGE_DAYS = 30;

const DAY_MS = 86_400_000;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The query of a range read, as received. */
export interface RangeQuery {
  from?: string;
  to?: string;
  interval?: string;
}

/** A checked range, after the retention clamp. */
export interface StatsRange {
  /** first day answered (`YYYY-MM-DD`), raised to the first day the plan keeps */
  from: string;
  /** last day answered */
  to: string;
  interval: Interval;
  /** the first day asked for (or defaulted to), before the clamp */
  requestedFrom: string;
  /** days of statistics the plan keeps (0 = forever) */
  retention: number;
  /** set when `from` was raised: says why */
  notice: string | null;
}

/** `YYYY-MM-DD` of a date (UTC). */
export function isoDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The day `n` days after `day` (before, when negative). */
export function addDays(day: string, n: number): string {
  return isoDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);
}

/** Days from `a` to `b` (`b` − `a`). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

/** The day a `YYYY-MM-DD` string names, or null when it is not a real calendar day. */
function parseDay(value: string): string | null {
  if (!ISO_DAY.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || isoDay(ms) !== value ? null : value;
}

/**
 * Checks a range query against `today` and the plan's `retention` (days; 0 = forever). Defaults:
 * `to` today, `from` 29 days before `to`, `interval` day. A bad value, `from` after `to` or a
 * range over MAX_RANGE_DAYS days is a 400 naming the field. Days older than the plan keeps
 * (before today − retention, what the fold job prunes) are left out: `from` is raised and
 * `notice` says so; a range entirely before that answers no day (`from` after `to`).
 */
export function parseRange(query: RangeQuery, today: string, retention: number): StatsRange {
  const interval = (query.interval ?? 'day') as Interval;
  if (!INTERVALS.includes(interval))
    throw new InvalidFieldError('interval', `must be one of ${INTERVALS.join(', ')}`);
  const day = (field: 'from' | 'to', value: string | undefined) => {
    if (value === undefined) return undefined;
    const parsed = parseDay(value);
    if (!parsed) throw new InvalidFieldError(field, 'must be a date YYYY-MM-DD (UTC)');
    return parsed;
  };
  const to = day('to', query.to) ?? today;
  const requestedFrom = day('from', query.from) ?? addDays(to, 1 - DEFAULT_RANGE_DAYS);
  if (requestedFrom > to) throw new InvalidFieldError('from', `must not be after to (${to})`);
  const span = daysBetween(requestedFrom, to) + 1;
  if (span > MAX_RANGE_DAYS)
    throw new InvalidFieldError(
      'from',
      `the range ${requestedFrom} to ${to} spans ${span} days; at most ${MAX_RANGE_DAYS} days may be asked for at once`,
    );
  let from = requestedFrom;
  let notice: string | null = null;
  if (retention > 0) {
    const kept = addDays(today, -retention);
    if (from < kept) {
      from = kept;
      notice = `from raised to ${kept}: your plan keeps statistics for ${retention} days`;
    }
  }
  return { from, to, interval, requestedFrom, retention, notice };
}

/** The first day of the period (`interval`) that contains `day`: itself, its Monday, or the 1st. */
export function periodStart(day: string, interval: Interval): string {
  if (interval === 'day') return day;
  if (interval === 'month') return `${day.slice(0, 8)}01`;
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -((weekday + 6) % 7));
}

/** One period of a series: its first day within the range, and its days. */
export interface Period {
  date: string;
  days: string[];
}

/**
 * Every period of the range, in order, each labelled by its first day within the range (the
 * first and last weeks or months of a range may be partial). Empty when `from` is after `to`.
 */
export function periods(from: string, to: string, interval: Interval): Period[] {
  const out: Period[] = [];
  let current: Period | undefined;
  let currentStart = '';
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const start = periodStart(day, interval);
    if (!current || start !== currentStart) {
      current = { date: day, days: [] };
      currentStart = start;
      out.push(current);
    }
    current.days.push(day);
  }
  return out;
}

/** The calendar months (`YYYY-MM`) whose every day lies within `from`..`to`. */
export function fullMonths(from: string, to: string): string[] {
  const out: string[] = [];
  for (let first = from.endsWith('-01') ? from : nextMonth(from); ; first = nextMonth(first)) {
    if (addDays(nextMonth(first), -1) > to) return out;
    out.push(first.slice(0, 7));
  }
}

/** A span of days, both ends included (`YYYY-MM-DD`). */
export type DaySpan = [first: string, last: string];

/**
 * How the dimension counts of `from`..`to` are read: calendar months from the month sums
 * (`months`, each `YYYY-MM-01`), plus the days of `add`, minus the days of `subtract` (a summed
 * month's days outside the range). Each month of the range takes the cheaper way by the days it
 * would read (days after `today` hold nothing): its days in the range, or its sum and its days
 * outside the range; a month wholly inside the range reads no day. Adjacent spans are joined.
 */
export interface DimensionPlan {
  months: string[];
  add: DaySpan[];
  subtract: DaySpan[];
}

export function dimensionPlan(from: string, to: string, today: string): DimensionPlan {
  const plan: DimensionPlan = { months: [], add: [], subtract: [] };
  /** the days of a span that can hold rows */
  const cost = ([a, b]: DaySpan) => {
    const last = b < today ? b : today;
    return a > last ? 0 : daysBetween(a, last) + 1;
  };
  const join = (spans: DaySpan[], span: DaySpan) => {
    if (span[0] > span[1]) return;
    const prev = spans[spans.length - 1];
    if (prev && addDays(prev[1], 1) === span[0]) prev[1] = span[1];
    else spans.push(span);
  };
  for (let first = `${from.slice(0, 8)}01`; first <= to; first = nextMonth(first)) {
    const last = addDays(nextMonth(first), -1);
    const inside: DaySpan = [from > first ? from : first, to < last ? to : last];
    const outside: DaySpan[] = [
      [first, addDays(inside[0], -1)],
      [addDays(inside[1], 1), last],
    ];
    const outsideCost = outside.reduce((n, s) => n + cost(s), 0);
    // a month's sum reads about as many rows as one of its days
    if (outsideCost + 1 < cost(inside)) {
      plan.months.push(first);
      for (const span of outside) join(plan.subtract, span);
    } else join(plan.add, inside);
  }
  return plan;
}

/** The first day of the month after the month of `day` (`YYYY-MM-01`). */
function nextMonth(day: string): string {
  return `${addDays(`${day.slice(0, 8)}01`, 32).slice(0, 8)}01`;
}
