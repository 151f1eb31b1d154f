import { isNestPath, NEST_ROOTS, PUBLIC_PREFIXES, randomString } from '@app/common';

/** A short-link alias: 3-64 of [A-Za-z0-9_-]. The redirector checks the same pattern before any lookup. */
export const ALIAS_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

/**
 * `ALIAS_PATTERN.test(s)` without the regular expression: the redirector checks every path
 * with it, and a loop over char codes costs a fraction of a RegExp call (callgrind: ~40 against
 * ~230 instructions a request).
 */
export function isAliasShaped(s: string): boolean {
  const n = s.length;
  if (n < 3 || n > 64) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // 0-9, A-Z, a-z, '_' or '-'
    if (!(
      (c >= 97 && c <= 122) ||
      (c >= 65 && c <= 90) ||
      (c >= 48 && c <= 57) ||
      c === 95 ||
      c === 45
    ))
      return false;
  }
  return true;
}

/**
 * Words people expect to be the site's own pages, and the files browsers and crawlers ask for:
 * reserved although nothing serves them today, so that no short link poses as one.
 */
const SITE_WORDS = [
  'static',
  'assets',
  'admin',
  'login',
  'logout',
  'signup',
  'register',
  'account',
  'dashboard',
  'settings',
  'user',
  'users',
  'www',
  'help',
  'support',
  'about',
  'terms',
  'privacy',
  'contact',
  'pricing',
  'blog',
  'favicon.ico',
  'robots.txt',
  'sitemap.xml',
  'humans.txt',
  '.well-known',
];

/**
 * Aliases that would shadow a path of the service, derived from where the paths are declared:
 * Nest's roots (NEST_ROOTS: `api`, `auth`, `health`, `docs`; isReservedAlias refuses every alias
 * isNestPath would take too, `docs-json`, `health2`), the public prefixes (PUBLIC_PREFIXES: `q`,
 * `r`, `u`, `app`), and the SITE_WORDS. Compared case-insensitively.
 */
export const RESERVED_ALIASES: ReadonlySet<string> = new Set([
  ...NEST_ROOTS,
  ...PUBLIC_PREFIXES.map((prefix) => prefix.slice(1, -1)),
  ...SITE_WORDS,
]);

/**
 * A reserved word (case-insensitive), or an alias the service would not serve as a short link:
 * the front hands `/<alias>` to Nest (`isNestPath`, the predicate it uses: `api`, `health2`,
 * `docs1`, `docs-json2`, …; also in another case, so that no alias looks like one).
 */
export function isReservedAlias(alias: string): boolean {
  const lower = alias.toLowerCase();
  return RESERVED_ALIASES.has(lower) || isNestPath(`/${lower}`);
}

/** Why a custom alias is refused, or null when it is acceptable (uniqueness is checked by the database). */
export function aliasProblem(alias: string): string | null {
  if (!ALIAS_PATTERN.test(alias)) return 'must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -';
  if (isReservedAlias(alias)) return 'is reserved';
  return null;
}

/**
 * Length of generated aliases: 7 characters (62^7 ≈ 3.5·10^12: at 10 million links a new alias
 * collides once in ~350 000, and guessing one takes ~350 000 tries, which the miss budget of the
 * public side makes slow), one more every two collisions.
 */
export const GENERATED_ALIAS_LENGTH = 7;

/** A random alias over [A-Za-z0-9] (CSPRNG); `attempt` grows it after collisions. Never a reserved word. */
export function generateAlias(attempt = 0): string {
  const length = GENERATED_ALIAS_LENGTH + Math.floor(attempt / 2);
  for (;;) {
    const alias = randomString(length);
    if (!isReservedAlias(alias)) return alias;
  }
}
