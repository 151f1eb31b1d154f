import { InvalidFieldError } from '@app/common';

/**
 * Date ranges of statistics reads: parsing `from` / `to` / `interval`, the retention clamp, and
 * the periods of a series. Days are UTC calendar days written `YYYY-MM-DD`; pure functions.
 */

export const INTERVALS = ['day', 'week', 'month', 'hour'] as const;
export type Interval = (typeof INTERVALS)[number];

/** The longest range a read may ask for, in days (both ends included). */
export const MAX_RANGE_DAYS = 400;
/** The longest range `interval=hour` may ask for, in days. */
export const MAX_HOUR_RANGE_DAYS = 7;
/**
 * Days of hourly counts kept: today and the 7 days before it (retention deletes older hours), so
 * `interval=hour` answers any range of up to 7 days that ends yesterday or today.
 */
export const HOURLY_DAYS = 8;

/** The range read when neither end is given: the last 30 days, today included. */
export const DEFAULT_RANGE_DAYS = 30;

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

/** `YYYY-MM-DD` of a date (UTC): today's, for instance. */
export function isoDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The first day a range may start on. */
export const MIN_DAY = '2000-01-01';

/** The last day a range may end on: December 31st of the year after `today`'s. */
export function maxDay(today: string): string {
  return `${Number(today.slice(0, 4)) + 1}-12-31`;
}

/*
 * Days are handled as day numbers (days since 1970-01-01, proleptic Gregorian), computed with
 * integer arithmetic (H. Hinnant's days_from_civil / civil_from_days): every loop below counts
 * numbers up to a number, so it ends whatever days it is given, and no day is compared as a
 * string (`+010000-01-01`, what Date writes after 9999, sorts before `9999-12-31`).
 */

/** The day number of a `YYYY-MM-DD` day (not checked: see `parseDay`; years past 9999 too). */
export function dayNumber(day: string): number {
  const n = day.length;
  return civilDay(
    Number(day.slice(0, n - 6)),
    Number(day.slice(n - 5, n - 3)),
    Number(day.slice(n - 2)),
  );
}

/** The day number of day `d` of month `m` (1 = January) of year `year`. */
function civilDay(year: number, m: number, d: number): number {
  const y = m <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The `YYYY-MM-DD` of a day number (years below 1000 zero-padded to four digits). */
export function dayString(n: number): string {
  const z = n + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

/** The day `n` days after `day` (before, when negative). */
export function addDays(day: string, n: number): string {
  return dayString(dayNumber(day) + n);
}

/** Days from `a` to `b` (`b` − `a`). */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

/** The month number (12 × year + month − 1) of a day: months are counted like days. */
const monthNumber = (day: string) => {
  const n = day.length;
  return Number(day.slice(0, n - 6)) * 12 + Number(day.slice(n - 5, n - 3)) - 1;
};
/** The day number of the first day of a month number. */
const monthStart = (month: number) => {
  const year = Math.floor(month / 12);
  return civilDay(year, month - year * 12 + 1, 1);
};

/** The day a `YYYY-MM-DD` string names, or null when it is not a real calendar day. */
function parseDay(value: string): string | null {
  if (!ISO_DAY.test(value)) return null;
  return dayString(dayNumber(value)) === value ? value : null;
}

/**
 * Checks a range query against `today` and the plan's `retention` (days; 0 = forever). Defaults:
 * `to` today, `from` 29 days before `to` (not before MIN_DAY), `interval` day. A bad value, a day
 * before MIN_DAY or after `maxDay(today)`, `from` after `to` or a range over MAX_RANGE_DAYS days
 * is a 400 naming the field. Days older than the plan keeps (before today − retention, what the
 * fold job prunes) are left out: `from` is raised and `notice` says so; a range entirely before
 * that answers no day (`from` after `to`).
 */
export function parseRange(query: RangeQuery, today: string, retention: number): StatsRange {
  const interval = (query.interval ?? 'day') as Interval;
  if (!INTERVALS.includes(interval))
    throw new InvalidFieldError('interval', `must be one of ${INTERVALS.join(', ')}`);
  const [first, last] = [dayNumber(MIN_DAY), dayNumber(maxDay(today))];
  const day = (field: 'from' | 'to', value: string | undefined) => {
    if (value === undefined) return undefined;
    const parsed = parseDay(value);
    if (!parsed) throw new InvalidFieldError(field, 'must be a date YYYY-MM-DD (UTC)');
    const n = dayNumber(parsed);
    if (n < first || n > last)
      throw new InvalidFieldError(field, `must be a day from ${MIN_DAY} to ${maxDay(today)}`);
    return n;
  };
  const to = day('to', query.to) ?? dayNumber(today);
  const hourly = interval === 'hour';
  const requested =
    day('from', query.from) ??
    Math.max(first, to + 1 - (hourly ? MAX_HOUR_RANGE_DAYS : DEFAULT_RANGE_DAYS));
  if (requested > to)
    throw new InvalidFieldError('from', `must not be after to (${dayString(to)})`);
  const span = to - requested + 1;
  const requestedFrom = dayString(requested);
  if (span > MAX_RANGE_DAYS)
    throw new InvalidFieldError(
      'from',
      `the range ${requestedFrom} to ${dayString(to)} spans ${span} days; at most ${MAX_RANGE_DAYS} days may be asked for at once`,
    );
  if (hourly && span > MAX_HOUR_RANGE_DAYS)
    throw new InvalidFieldError(
      'interval',
      `hour takes ranges of at most ${MAX_HOUR_RANGE_DAYS} days (${requestedFrom} to ${dayString(to)} spans ${span})`,
    );
  let from = requested;
  let notice: string | null = null;
  if (retention > 0) {
    const kept = dayNumber(today) - retention;
    if (from < kept) {
      from = kept;
      notice = `from raised to ${dayString(kept)}: your plan keeps statistics for ${retention} days`;
    }
  }
  if (hourly) {
    const kept = dayNumber(today) - (HOURLY_DAYS - 1);
    if (from < kept) {
      from = kept;
      notice = `from raised to ${dayString(kept)}: hourly counts are kept for ${HOURLY_DAYS} days`;
    }
  }
  return { from: dayString(from), to: dayString(to), interval, requestedFrom, retention, notice };
}

/** The week number of a day number: weeks run Monday to Sunday (1970-01-01 was a Thursday). */
const weekNumber = (n: number) => Math.floor((n + 3) / 7);

/** The first day of the period (`interval`) that contains `day`: itself, its Monday, or the 1st. */
export function periodStart(day: string, interval: Interval): string {
  if (interval === 'day' || interval === 'hour') return day;
  if (interval === 'month') return dayString(monthStart(monthNumber(day)));
  return dayString(weekNumber(dayNumber(day)) * 7 - 3);
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
  let currentKey = NaN;
  for (let n = dayNumber(from), last = dayNumber(to); n <= last; n++) {
    const day = dayString(n);
    const key =
      interval === 'day' || interval === 'hour'
        ? n
        : interval === 'week'
          ? weekNumber(n)
          : monthNumber(day);
    if (!current || key !== currentKey) {
      current = { date: day, days: [] };
      currentKey = key;
      out.push(current);
    }
    current.days.push(day);
  }
  return out;
}

/** The hours of a range (`YYYY-MM-DDTHH`, UTC), in order: 24 per day. Empty when `from` is after `to`. */
export function hoursOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let n = dayNumber(from), last = dayNumber(to); n <= last; n++) {
    const day = dayString(n);
    for (let h = 0; h < 24; h++) out.push(`${day}T${h < 10 ? '0' : ''}${h}`);
  }
  return out;
}

/** The calendar months (`YYYY-MM`) whose every day lies within `from`..`to`. */
export function fullMonths(from: string, to: string): string[] {
  const out: string[] = [];
  const [first, last] = [dayNumber(from), dayNumber(to)];
  let month = monthNumber(from);
  if (monthStart(month) < first) month += 1;
  for (; monthStart(month + 1) - 1 <= last; month++)
    out.push(dayString(monthStart(month)).slice(0, -3));
  return out;
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
  type Span = [number, number];
  const [start, end, now] = [dayNumber(from), dayNumber(to), dayNumber(today)];
  const months: string[] = [];
  const add: Span[] = [];
  const subtract: Span[] = [];
  /** the days of a span that can hold rows */
  const cost = ([a, b]: Span) => Math.max(0, Math.min(b, now) - a + 1);
  const join = (spans: Span[], span: Span) => {
    if (span[0] > span[1]) return;
    const prev = spans[spans.length - 1];
    if (prev && prev[1] + 1 === span[0]) prev[1] = span[1];
    else spans.push(span);
  };
  if (start <= end)
    for (let month = monthNumber(from), lastMonth = monthNumber(to); month <= lastMonth; month++) {
      const [first, last] = [monthStart(month), monthStart(month + 1) - 1];
      const inside: Span = [Math.max(start, first), Math.min(end, last)];
      const outside: Span[] = [
        [first, inside[0] - 1],
        [inside[1] + 1, last],
      ];
      // a month's sum reads about as many rows as one of its days
      if (outside.reduce((n, s) => n + cost(s), 0) + 1 < cost(inside)) {
        months.push(dayString(first));
        for (const span of outside) join(subtract, span);
      } else join(add, inside);
    }
  const days = (spans: Span[]) => spans.map(([a, b]): DaySpan => [dayString(a), dayString(b)]);
  return { months, add: days(add), subtract: days(subtract) };
}
