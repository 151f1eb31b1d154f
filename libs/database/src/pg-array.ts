/**
 * A Postgres array literal (`{1,2,"a\"b",NULL}`) of numbers, strings and nulls, to pass as one
 * text parameter of a bulk statement (`unnest($1::int[], ...)`): what `pg` makes of a JavaScript
 * array, for a fraction of the work. `pg` quotes every element, numbers included, through two
 * regular-expression replacements each; with a few thousand elements a statement that was a tenth
 * of the fold's CPU. Numbers are written bare (finite ones only: NaN or Infinity would not be the
 * number meant); strings are quoted, with `\` and `"` escaped, so `NULL`, commas, braces and
 * spaces stay text. Bytes (`bytea[]`) are not handled: pass those as an array and let `pg` encode
 * them.
 */
export function pgArray(values: ReadonlyArray<number | string | null>): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null) out += 'NULL';
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new RangeError(`pgArray: ${v} is not a finite number`);
      out += v;
    } else out += `"${v.includes('\\') || v.includes('"') ? v.replace(/[\\"]/g, '\\$&') : v}"`;
  }
  return `${out}}`;
}
