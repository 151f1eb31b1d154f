import { InvalidFieldError } from '@app/common';

import fc from 'fast-check';

import {
  addDays,
  dayNumber,
  daysBetween,
  dayString,
  dimensionPlan,
  fullMonths,
  hoursOf,
  parseRange,
  periods,
  periodStart,
} from './stats-range';

const TODAY = '2026-11-23'; // a Monday

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidFieldError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe('statistics ranges', () => {
  it('day arithmetic crosses months, years and leap days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(daysBetween('2026-01-01', '2026-12-31')).toBe(364);
  });

  it('defaults to the last 30 days by day', () => {
    expect(parseRange({}, TODAY, 0)).toEqual({
      from: '2026-10-25',
      to: TODAY,
      interval: 'day',
      requestedFrom: '2026-10-25',
      retention: 0,
      notice: null,
    });
    expect(parseRange({ to: '2026-01-30' }, TODAY, 0)).toMatchObject({ from: '2026-01-01' });
    expect(parseRange({ from: '2026-11-01' }, TODAY, 0)).toMatchObject({
      from: '2026-11-01',
      to: TODAY,
    });
  });

  it('takes interval=hour for ranges of up to 7 days, raised to the 8 days of hours kept', () => {
    expect(parseRange({ interval: 'hour' }, TODAY, 0)).toEqual({
      from: '2026-11-17',
      to: TODAY,
      interval: 'hour',
      requestedFrom: '2026-11-17',
      retention: 0,
      notice: null,
    });
    expect(
      parseRange({ interval: 'hour', from: '2026-11-16', to: '2026-11-22' }, TODAY, 0),
    ).toMatchObject({ from: '2026-11-16', to: '2026-11-22', notice: null });
    expect(
      refusal(() => parseRange({ interval: 'hour', from: '2026-11-16', to: TODAY }, TODAY, 0)),
    ).toMatch(/^interval: hour takes ranges of at most 7 days/);
    // hours older than today and the 7 days before it are not kept
    expect(
      parseRange({ interval: 'hour', from: '2026-11-10', to: '2026-11-16' }, TODAY, 0),
    ).toMatchObject({
      from: '2026-11-16',
      to: '2026-11-16',
      notice: 'from raised to 2026-11-16: hourly counts are kept for 8 days',
    });
    // a plan keeping 3 days raises it further
    expect(parseRange({ interval: 'hour' }, TODAY, 3)).toMatchObject({ from: '2026-11-20' });
    expect(hoursOf('2026-11-22', '2026-11-23')).toHaveLength(48);
    expect(hoursOf('2026-11-22', '2026-11-22').slice(0, 2)).toEqual([
      '2026-11-22T00',
      '2026-11-22T01',
    ]);
    expect(hoursOf('2026-11-23', '2026-11-22')).toEqual([]);
  });

  it('refuses bad dates, intervals, reversed and over-long ranges, naming the field', () => {
    for (const bad of ['2026-13-01', '2026-02-30', '26-11-01', '2026-11-1', 'yesterday', ''])
      expect(refusal(() => parseRange({ from: bad }, TODAY, 0))).toMatch(/^from: /);
    expect(refusal(() => parseRange({ to: '2026-11-31' }, TODAY, 0))).toMatch(/^to: /);
    expect(refusal(() => parseRange({ interval: 'hourly' }, TODAY, 0))).toMatch(/^interval: /);
    expect(refusal(() => parseRange({ from: '2026-11-02', to: '2026-11-01' }, TODAY, 0))).toMatch(
      /^from: must not be after to/,
    );
    expect(refusal(() => parseRange({ from: '2025-10-19', to: TODAY }, TODAY, 0))).toMatch(
      /^from: .*spans 401 days; at most 400/,
    );
    // exactly 400 days is fine
    expect(parseRange({ from: '2025-10-20', to: TODAY }, TODAY, 0).from).toBe('2025-10-20');
  });

  it('refuses days before 2000 or after next year, naming the field', () => {
    for (const [query, field] of [
      [{ from: '9999-12-31', to: '9999-12-31' }, 'to'],
      [{ from: '9999-12-31' }, 'from'],
      [{ from: '0000-01-01', to: '0000-01-01' }, 'to'],
      [{ from: '0000-01-01' }, 'from'],
      [{ from: '1999-12-31' }, 'from'],
      [{ to: '2028-01-01' }, 'to'],
    ] as const)
      expect(refusal(() => parseRange(query, TODAY, 30))).toBe(
        `${field}: must be a day from 2000-01-01 to 2027-12-31`,
      );
    expect(parseRange({ from: '2000-01-01', to: '2000-01-31' }, TODAY, 0).from).toBe('2000-01-01');
    // a defaulted from stops at 2000-01-01
    expect(parseRange({ to: '2000-01-05' }, TODAY, 0).from).toBe('2000-01-01');
    expect(parseRange({ from: '2027-12-01', to: '2027-12-31' }, TODAY, 0)).toMatchObject({
      from: '2027-12-01',
      to: '2027-12-31',
    });
  });

  it('raises from to the first day the plan keeps, and says so', () => {
    const r = parseRange({ from: '2026-01-01', to: TODAY }, TODAY, 30);
    expect(r).toMatchObject({ from: '2026-10-24', requestedFrom: '2026-01-01', retention: 30 });
    expect(r.notice).toMatch(/from raised to 2026-10-24: your plan keeps statistics for 30 days/);
    expect(parseRange({ from: '2026-11-01' }, TODAY, 30).notice).toBeNull();
    // entirely before what is kept: no day answered
    const gone = parseRange({ from: '2026-01-01', to: '2026-01-31' }, TODAY, 30);
    expect(gone.from > gone.to).toBe(true);
    expect(periods(gone.from, gone.to, 'day')).toEqual([]);
  });

  it('weeks start on Monday, months on the 1st', () => {
    expect(periodStart('2026-11-23', 'week')).toBe('2026-11-23');
    expect(periodStart('2026-11-29', 'week')).toBe('2026-11-23'); // Sunday
    expect(periodStart('2026-11-22', 'week')).toBe('2026-11-16');
    expect(periodStart('2026-11-22', 'month')).toBe('2026-11-01');
    expect(periodStart('2026-11-22', 'day')).toBe('2026-11-22');
  });

  it('every period of a range, labelled by its first day within the range, zero gaps', () => {
    expect(periods('2026-11-20', '2026-11-22', 'day')).toEqual([
      { date: '2026-11-20', days: ['2026-11-20'] },
      { date: '2026-11-21', days: ['2026-11-21'] },
      { date: '2026-11-22', days: ['2026-11-22'] },
    ]);
    const weeks = periods('2026-11-12', '2026-11-24', 'week'); // Thursday to Tuesday
    expect(weeks.map((p) => [p.date, p.days.length])).toEqual([
      ['2026-11-12', 4],
      ['2026-11-16', 7],
      ['2026-11-23', 2],
    ]);
    const months = periods('2026-01-15', '2026-03-02', 'month');
    expect(months.map((p) => [p.date, p.days.length])).toEqual([
      ['2026-01-15', 17],
      ['2026-02-01', 28],
      ['2026-03-01', 2],
    ]);
    // every day of the range in exactly one period
    const all = periods('2025-10-20', TODAY, 'month').flatMap((p) => p.days);
    expect(all).toHaveLength(400);
    expect(new Set(all).size).toBe(400);
  });

  it('lists the calendar months wholly inside a range', () => {
    expect(fullMonths('2026-01-01', '2026-03-31')).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(fullMonths('2026-01-02', '2026-03-30')).toEqual(['2026-02']);
    expect(fullMonths('2024-02-01', '2024-02-29')).toEqual(['2024-02']);
    expect(fullMonths('2024-02-01', '2024-02-28')).toEqual([]);
    expect(fullMonths('2025-12-15', '2026-01-31')).toEqual(['2026-01']);
    expect(fullMonths('2026-11-05', '2026-11-20')).toEqual([]);
  });

  it('reads dimension counts by whole months where that reads fewer days', () => {
    // 365 days to today: the first month's 6 days, then months (today's month: no day after it)
    expect(dimensionPlan('2025-11-25', TODAY, TODAY)).toEqual({
      months: [
        '2025-12-01',
        ...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11'].map(
          (m) => `2026-${m}-01`,
        ),
      ],
      add: [['2025-11-25', '2025-11-30']],
      subtract: [['2026-11-24', '2026-11-30']],
    });
    // most of a past month: its sum minus its first 3 days
    expect(dimensionPlan('2026-03-04', '2026-03-31', TODAY)).toEqual({
      months: ['2026-03-01'],
      add: [],
      subtract: [['2026-03-01', '2026-03-03']],
    });
    // a few days across two months: days only, one span
    expect(dimensionPlan('2026-01-28', '2026-02-03', TODAY)).toEqual({
      months: [],
      add: [['2026-01-28', '2026-02-03']],
      subtract: [],
    });
    expect(dimensionPlan('2026-02-01', '2026-01-31', TODAY)).toEqual({
      months: [],
      add: [],
      subtract: [],
    });
  });

  it('a dimension plan counts every day of the range once and no other day', () => {
    const day = (n: number) => addDays('2024-01-01', n);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 900 }),
        fc.integer({ min: 0, max: 399 }),
        fc.integer({ min: -40, max: 500 }),
        (start, length, todayOffset) => {
          const [from, to, today] = [day(start), day(start + length), day(start + todayOffset)];
          const plan = dimensionPlan(from, to, today);
          const inSpans = (d: string, spans: Array<[string, string]>) =>
            spans.filter(([a, b]) => a <= d && d <= b).length;
          for (let d = day(start - 40); d <= day(start + length + 40); d = addDays(d, 1)) {
            const times =
              (plan.months.includes(`${d.slice(0, 8)}01`) ? 1 : 0) +
              inSpans(d, plan.add) -
              inSpans(d, plan.subtract);
            if (times !== (from <= d && d <= to ? 1 : 0)) return false;
          }
          return true;
        },
      ),
      { numRuns: 300 },
    );
  });

  describe('over every day from 0001-01-01 to 9999-12-31', () => {
    const FIRST = dayNumber('0001-01-01');
    const LAST = dayNumber('9999-12-31');
    /** Any day of years 1 to 9999, the ends and leap days drawn more often. */
    const anyDay = fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: FIRST, max: LAST }).map(dayString) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '0001-01-01',
          '0004-02-29',
          '1900-02-28',
          '1900-03-01',
          '2000-02-29',
          '2024-02-29',
          '9996-02-29',
          '9999-12-31',
        ),
      },
    );
    /** A range of 1 to 400 days starting on any day, ending on 9999-12-31 at the latest. */
    const anyRange = fc
      .tuple(anyDay, fc.integer({ min: 0, max: 399 }))
      .map(([from, length]) => [from, dayString(Math.min(LAST, dayNumber(from) + length))]);
    /** The day number of a day, by Date (an independent reckoning). */
    const byDate = (day: string) => {
      const d = new Date(0);
      d.setUTCFullYear(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8)));
      return d.getTime() / 86_400_000;
    };

    it('past 9999 too: the helpers count on', () => {
      expect(addDays('9999-12-31', 1)).toBe('10000-01-01');
      expect(daysBetween('9999-12-31', '10000-01-01')).toBe(1);
      expect(periods('9999-12-30', '10000-01-02', 'month').map((p) => p.date)).toEqual([
        '9999-12-30',
        '10000-01-01',
      ]);
      expect(fullMonths('9999-12-01', '10000-02-01')).toEqual(['9999-12', '10000-01']);
      expect(dimensionPlan('9999-12-31', '10000-01-01', '2026-11-23').add).toEqual([
        ['9999-12-31', '10000-01-01'],
      ]);
    });

    it('day numbers agree with Date, both ways', () => {
      fc.assert(
        fc.property(anyDay, fc.integer({ min: -400, max: 400 }), (day, n) => {
          expect(dayString(dayNumber(day))).toBe(day);
          expect(dayNumber(day)).toBe(byDate(day));
          const later = dayNumber(day) + n;
          if (later >= FIRST && later <= LAST) {
            expect(daysBetween(day, addDays(day, n))).toBe(n);
            expect(byDate(addDays(day, n))).toBe(later);
          }
        }),
        { numRuns: 2000 },
      );
    });

    it('periods, full months and dimension plans end and agree with the range', () => {
      fc.assert(
        fc.property(anyRange, anyDay, ([from, to], today) => {
          const span = daysBetween(from, to) + 1;
          const every = Array.from({ length: span }, (_, i) => addDays(from, i)).join();
          for (const interval of ['day', 'week', 'month'] as const) {
            const series = periods(from, to, interval);
            expect(series.flatMap((p) => p.days).join()).toBe(every);
            const starts = series.map((p) => periodStart(p.date, interval));
            // each period is labelled by its first day, holds one period's days, starts a new one
            const sound = series.every(
              (p, i) =>
                p.date === p.days[0] &&
                p.days.every((d) => periodStart(d, interval) === starts[i]) &&
                (i === 0 || starts[i] !== starts[i - 1]),
            );
            expect([interval, sound]).toEqual([interval, true]);
          }
          // the months whose 1st and last day are in the range, in order
          const months = periods(from, to, 'month')
            .filter((p) => p.days[0].endsWith('-01') && addDays(p.days.at(-1)!, 1).endsWith('-01'))
            .map((p) => p.date.slice(0, 7));
          expect(fullMonths(from, to)).toEqual(months);
          // a dimension plan counts every day of the range once, and no day around it
          const plan = dimensionPlan(from, to, today);
          const times = new Map<number, number>();
          const bump = (a: string, b: string, by: number) => {
            for (let n = dayNumber(a); n <= dayNumber(b); n++)
              times.set(n, (times.get(n) ?? 0) + by);
          };
          // a month's last day, found by walking (the next month of 9999-12 has a 5-digit year)
          const monthEnd = (m: string) => {
            let n = dayNumber(m);
            while (dayString(n + 1).slice(0, 7) === m.slice(0, 7)) n++;
            return dayString(n);
          };
          for (const m of plan.months) bump(m, monthEnd(m), 1);
          for (const [a, b] of plan.add) bump(a, b, 1);
          for (const [a, b] of plan.subtract) bump(a, b, -1);
          const [start, end] = [dayNumber(from), dayNumber(to)];
          for (const [n, count] of times)
            expect([n, count]).toEqual([n, n >= start && n <= end ? 1 : 0]);
          for (let n = start; n <= end; n++) expect(times.get(n)).toBe(1);
        }),
        // the range that ends in the last month the helpers know (a CI run found it)
        { numRuns: 150, examples: [[['9998-10-29', '9999-12-02'], '9999-12-02']] },
      );
    });
  });
});
