import { pgArray } from './pg-array';

describe('pgArray (a Postgres array literal for one text parameter)', () => {
  it('numbers bare, strings quoted, nulls as NULL', () => {
    expect(pgArray([1, 22, 0, -3, 1.5])).toBe('{1,22,0,-3,1.5}');
    expect(pgArray(['2026-11-30', 'co', 'FR'])).toBe('{"2026-11-30","co","FR"}');
    expect(pgArray([7, null, 'x'])).toBe('{7,NULL,"x"}');
    expect(pgArray([])).toBe('{}');
  });

  it('text that looks like syntax stays text: quotes and backslashes escaped', () => {
    expect(pgArray(['NULL', '', 'a,b', '{c}', ' d '])).toBe('{"NULL","","a,b","{c}"," d "}');
    expect(pgArray(['say "hi"', 'C:\\dir\\', '\\"'])).toBe(
      '{"say \\"hi\\"","C:\\\\dir\\\\","\\\\\\""}',
    );
  });

  it('refuses what is not a finite number', () => {
    expect(() => pgArray([NaN])).toThrow(RangeError);
    expect(() => pgArray([Infinity])).toThrow(RangeError);
  });
});
