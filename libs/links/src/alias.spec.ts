import {
  ALIAS_PATTERN,
  aliasProblem,
  generateAlias,
  GENERATED_ALIAS_LENGTH,
  isAliasShaped,
  isReservedAlias,
} from './alias';

describe('alias rules', () => {
  it('accepts 3-64 of [A-Za-z0-9_-]', () => {
    for (const ok of ['abc', 'A_b-9', 'x'.repeat(64), '---', '___'])
      expect(aliasProblem(ok)).toBeNull();
  });

  it('refuses other lengths and characters', () => {
    for (const bad of [
      '',
      'ab',
      'x'.repeat(65),
      'a b',
      'a.b',
      'a/b',
      'ü12',
      'abc\n',
      '<script>',
      'a%20b',
    ]) {
      expect(aliasProblem(bad)).toMatch(/3 to 64 characters/);
    }
  });

  it('refuses reserved words, whatever their case', () => {
    for (const word of [
      'api',
      'auth',
      'docs',
      'health',
      'q',
      'r',
      'u',
      'static',
      'assets',
      'admin',
      'login',
      'API',
      'Docs',
      'ADMIN',
    ]) {
      expect(isReservedAlias(word)).toBe(true);
    }
    expect(aliasProblem('Admin')).toBe('is reserved');
    expect(aliasProblem('docs-json')).toBe('is reserved');
    expect(aliasProblem('apis')).toBeNull();
    expect(isReservedAlias('favicon.ico')).toBe(true);
  });

  it('refuses every alias the front would hand to Nest instead of serving it (isNestPath)', () => {
    for (const alias of [
      'health2',
      'healthy',
      'docs1',
      'docs-json2',
      'docsXYZ',
      'Health2',
      'DOCS1',
    ])
      expect(aliasProblem(alias)).toBe('is reserved');
    // served as short links: the front's prefixes are /api, /api/, /auth/, /health, /docs
    for (const alias of ['apix', 'apiary', 'authors', 'heal', 'doc', 'dXs123', 'my-docs'])
      expect(aliasProblem(alias)).toBeNull();
  });

  it('generates random aliases of 6+ alphanumerics that pass the rules, longer after collisions', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const a = generateAlias();
      expect(a).toMatch(/^[A-Za-z0-9]{7}$/);
      expect(ALIAS_PATTERN.test(a) && aliasProblem(a) === null).toBe(true);
      seen.add(a);
    }
    expect(seen.size).toBe(500);
    expect(generateAlias(0)).toHaveLength(GENERATED_ALIAS_LENGTH);
    expect(generateAlias(2)).toHaveLength(GENERATED_ALIAS_LENGTH + 1);
    expect(generateAlias(7)).toHaveLength(GENERATED_ALIAS_LENGTH + 3);
  });

  it('isAliasShaped answers exactly as ALIAS_PATTERN, on edge cases and random strings', () => {
    const cases = [
      '',
      'ab',
      'abc',
      'a'.repeat(64),
      'a'.repeat(65),
      'A_z-09',
      'ab/',
      'ab c',
      'ab.c',
      'abc\n',
      'ab@',
      'ab[',
      'ab`',
      'ab{',
      'ab:',
      'ab\u00e9',
      '---',
      '___',
    ];
    const valid = 'aZ09_-';
    const invalid = '/.:@[`{ \u00e9\u0000';
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 2000; i++) {
      let s = '';
      const n = next() % 70;
      for (let k = 0; k < n; k++) s += valid[next() % valid.length];
      // one in three gets a character outside the pattern somewhere
      if (n && next() % 3 === 0) {
        const at = next() % n;
        s = s.slice(0, at) + invalid[next() % invalid.length] + s.slice(at + 1);
      }
      cases.push(s);
    }
    let accepted = 0;
    for (const s of cases) {
      expect([s, isAliasShaped(s)]).toEqual([s, ALIAS_PATTERN.test(s)]);
      if (isAliasShaped(s)) accepted++;
    }
    // both answers occur (the comparison is not vacuous)
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(cases.length - 10);
  });
});
