import {
  ALIAS_PATTERN,
  aliasProblem,
  generateAlias,
  GENERATED_ALIAS_LENGTH,
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
});
