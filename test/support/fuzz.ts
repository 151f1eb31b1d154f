import fc from 'fast-check';

/** The four kinds of lone UTF-16 surrogate (high / low, first / last of their range). */
export const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF'];

/** A string with a lone surrogate somewhere in it (valid JSON once escaped, not valid Unicode). */
export const loneSurrogateString: fc.Arbitrary<string> = fc
  .tuple(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(...LONE_SURROGATES),
    fc.string({ maxLength: 40 }),
  )
  .map(([a, s, b]) => `${a}${s}${b}`);

/** Raw JSON of `{"<field>": [[[ … ]]]}` nested `depth` levels (JSON.stringify cannot build it). */
export function deeplyNested(field: string, depth: number, leaf = '"x"'): string {
  return `{${JSON.stringify(field)}:${'['.repeat(depth)}${leaf}${']'.repeat(depth)}}`;
}

/** Nesting depths from harmless to 10 000 levels, weighted to the far end. */
export const nestingDepth: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 1, max: 40 }),
  fc.integer({ min: 40, max: 10_000 }),
  fc.constantFrom(31, 32, 33, 5000, 10_000),
);

/** Values of every wrong kind: types, sizes, unicode, nulls, nesting, SQL and HTML fragments. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  loneSurrogateString,
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2147483648,
    -2147483649,
    1e308,
    Number.MAX_SAFE_INTEGER,
    '',
    ' ',
    '0',
    '-1',
    'NaN',
    'null',
    'true',
    "' OR '1'='1",
    "'; DROP TABLE users; --",
    '1; SELECT pg_sleep(1)',
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    '../../../../etc/passwd',
    '%00',
    '\u0000',
    'javascript:alert(1)',
    'http://127.0.0.1:6379/',
    'rgb(999,999,999)',
    '#GGGGGG',
    '9999-99-99 99:99:99',
    '2026-02-30 10:00:00',
    '💥🔥'.repeat(50),
    'a'.repeat(5000),
    [],
    {},
    [null],
    { $gt: '' },
    { __proto__: { admin: true } },
  ),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
);

/** A path id: numbers of every size and sign, and strings that are not numbers. */
export const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 5000 }).map(String),
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e3',
    '99999999999',
    '2147483648',
    'abc',
    "1'--",
    '%27',
    '%00',
    'null',
    '1%20OR%201=1',
    '..%2F..',
  ),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s) || 'x'),
);

/** A body built from a route's own field names (so validators run) plus stray keys, or raw bytes. */
export function hostileBody(fields: string[]): fc.Arbitrary<{ raw?: string; json?: unknown }> {
  const known = fields.length
    ? fc.dictionary(fc.constantFrom(...fields), hostileValue, { maxKeys: fields.length })
    : fc.constant({});
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(known, fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 2 }))
        .map(([a, b]) => ({ json: { ...b, ...a } })),
    },
    { weight: 3, arbitrary: known.map((json) => ({ json })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((json) => ({ json })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{',
          '{"a":',
          'null',
          '[]',
          '"str"',
          '123',
          '{"a":1}}',
          '\u0000',
          '{"__proto__":{"x":1}}',
        )
        .map((raw) => ({ raw })),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((raw) => ({ raw })) },
  );
}

/** A query string from the route's parameters plus strays, values hostile. */
export function hostileQuery(params: string[]): fc.Arbitrary<Record<string, string | string[]>> {
  const names = [...params, 'limit', 'page', 'x'];
  const value = fc.oneof(
    hostileValue.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
    fc.array(fc.string({ maxLength: 10 }), { minLength: 2, maxLength: 3 }),
  );
  return fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 3 });
}

/** What a failure body must never contain: stack frames, SQL, driver or internal error text. */
export const LEAK =
  /\bat [\w.<>]+ \(|\.ts:\d+|node_modules|QueryFailedError|TypeORMError|\bSELECT\b.*\bFROM\b|\bINSERT INTO\b|\bUPDATE\b.*\bSET\b|syntax error at|duplicate key|violates|ECONNREFUSED|relation "|column "|Cannot read prop|undefined is not|is not a function|argon2|\$argon2/i;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * `YYYY-MM-DD` texts over the whole space: any year 0000 to 9999 with any two-digit month and
 * day (mostly not real days), real days of any year, and the edges (year 0000 and 9999, leap
 * days, 02-30, the bounds of a statistics range); now and then a five-digit or signed year.
 */
export const anyDateText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 0, max: 99 }),
      fc.integer({ min: 0, max: 99 }),
    )
    .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 31 }),
    )
    .map(([y, m, d]) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`),
  fc
    .tuple(
      fc.integer({ min: 1998, max: 2030 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 31 }),
    )
    .map(([y, m, d]) => `${y}-${pad(m, 2)}-${pad(d, 2)}`),
  fc.constantFrom(
    '0000-01-01',
    '0001-01-01',
    '1999-12-31',
    '2000-01-01',
    '2000-02-29',
    '2023-02-29',
    '2023-02-30',
    '2024-02-29',
    '2100-02-29',
    '9999-12-31',
    '10000-01-01',
    '+010000-01-01',
    '-0001-01-01',
  ),
);

/** What an HTTP client can put in a header value: no control characters, Latin-1 only. */
const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

/**
 * `X-Workspace` values: `ids` (real workspaces: the caller's own, one it is a member of, one it
 * is not), numbers of every size and sign, texts that are not numbers, a huge value, and the
 * header sent twice or three times (a list).
 */
export function hostileWorkspace(ids: number[]): fc.Arbitrary<string | string[]> {
  const one = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids.map(String)) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 5000 }).map(String) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '0',
        '-0',
        '-1',
        '+1',
        '01',
        '007',
        '1.0',
        '1.5',
        '1e3',
        '0x1F',
        '2147483647',
        '2147483648',
        '4294967297',
        '99999999999',
        '9'.repeat(400),
        '',
        ' ',
        '\t',
        'abc',
        'null',
        'undefined',
        'NaN',
        'Infinity',
        'true',
        '[]',
        '{}',
        '[1]',
        '{"id":1}',
        '1,2',
        '1, 2',
        "1' OR '1'='1",
        '1; DROP TABLE users; --',
        '%31',
        '\t1\t',
        '1\u00a0',
        '\u00b9',
        '<script>alert(1)</script>',
        '../../etc/passwd',
      ),
    },
    { weight: 1, arbitrary: fc.constant('7'.repeat(4000)) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map(headerSafe) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(headerSafe) },
  );
  return fc.oneof(
    { weight: 5, arbitrary: one },
    { weight: 1, arbitrary: fc.array(one, { minLength: 2, maxLength: 3 }) },
  );
}

/**
 * The workspace an `X-Workspace` value names, as CONTRACT reads it: a positive 32-bit id, spaces
 * around it allowed; NaN for anything else (a list, the header sent more than once, included).
 */
export function workspaceNamed(value: string | string[]): number {
  if (Array.isArray(value)) return NaN;
  const text = value.trim();
  return /^[1-9][0-9]*$/.test(text) && Number(text) <= 2_147_483_647 ? Number(text) : NaN;
}
