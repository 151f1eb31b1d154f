import { trigramSearchable } from './link-list-query';

describe('trigramSearchable', () => {
  it('is true for three letters or digits in a row, in any script', () => {
    for (const q of ['garden', 'abc', '123', 'a_bcd', 'ärt', '日本語', '50%off'])
      expect(trigramSearchable(q)).toBe(true);
  });

  it('is false for a keyword pg_trgm has no trigram for', () => {
    for (const q of ['a', 'ab', '本', 'a.b', 'a_b', '%', '50%_', '  ', 'ab-cd'])
      expect(trigramSearchable(q)).toBe(false);
  });
});
