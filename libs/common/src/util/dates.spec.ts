import { addMonths, formatDateTime, formatDay, parseDateTime } from './dates';

const utc = (s: string) => new Date(`${s}Z`);

describe('addMonths', () => {
  it('adds calendar months keeping the day and the time of day', () => {
    expect(addMonths(utc('2024-03-15T10:20:30'), 1).toISOString()).toBe('2024-04-15T10:20:30.000Z');
    expect(addMonths(utc('2024-03-15T10:20:30'), 12).toISOString()).toBe(
      '2025-03-15T10:20:30.000Z',
    );
  });

  it('clamps to the last day of a shorter month', () => {
    expect(addMonths(utc('2023-01-31T12:00:00'), 1).toISOString()).toBe('2023-02-28T12:00:00.000Z');
    expect(addMonths(utc('2024-01-31T12:00:00'), 1).toISOString()).toBe('2024-02-29T12:00:00.000Z');
    expect(addMonths(utc('2024-03-31T00:00:00'), 1).toISOString()).toBe('2024-04-30T00:00:00.000Z');
    expect(addMonths(utc('2024-08-31T23:59:59'), 1).toISOString()).toBe('2024-09-30T23:59:59.000Z');
  });

  it('a leap day plus a year is Feb 28, plus four years Feb 29', () => {
    expect(addMonths(utc('2024-02-29T08:00:00'), 12).toISOString()).toBe(
      '2025-02-28T08:00:00.000Z',
    );
    expect(addMonths(utc('2024-02-29T08:00:00'), 48).toISOString()).toBe(
      '2028-02-29T08:00:00.000Z',
    );
  });

  it('crosses year boundaries', () => {
    expect(addMonths(utc('2024-12-31T00:00:00'), 1).toISOString()).toBe('2025-01-31T00:00:00.000Z');
    expect(addMonths(utc('2024-11-30T00:00:00'), 3).toISOString()).toBe('2025-02-28T00:00:00.000Z');
  });

  it('does not modify its argument', () => {
    const d = utc('2024-01-31T00:00:00');
    addMonths(d, 1);
    expect(d.toISOString()).toBe('2024-01-31T00:00:00.000Z');
  });
});

describe('parseDateTime', () => {
  it('parses the documented format as UTC', () => {
    expect(parseDateTime('2030-02-03 04:05:06')?.toISOString()).toBe('2030-02-03T04:05:06.000Z');
    expect(parseDateTime('2028-02-29 23:59:59')?.toISOString()).toBe('2028-02-29T23:59:59.000Z');
  });

  it.each([
    '2030-02-30 00:00:00',
    '2029-02-29 00:00:00',
    '2030-13-01 00:00:00',
    '2030-00-10 00:00:00',
    '2030-01-01 24:00:00',
    '2030-01-01 00:60:00',
    '2030-01-01 00:00:60',
    '2030-01-01T00:00:00',
    '2030-01-01',
    '2030-1-01 00:00:00',
    ' 2030-01-01 00:00:00',
    '2030-01-01 00:00:00Z',
    '',
  ])('rejects %p', (s) => {
    expect(parseDateTime(s)).toBeNull();
  });

  it('round-trips with formatDateTime', () => {
    const s = '2031-07-08 09:10:11';
    expect(formatDateTime(parseDateTime(s))).toBe(s);
    expect(formatDay(parseDateTime(s) as Date)).toBe('2031-07-08');
    expect(formatDateTime(null)).toBeNull();
  });
});
