import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  Length,
  Matches,
} from 'class-validator';
import type { ValidationArguments } from 'class-validator';

import { AREAS, SCOPES, Stacked } from '@app/common';

/** The scopes a key may hold, as the 400 of an unknown one lists them. */
const SCOPE_RULE = `each scope is * or <area>:read or <area>:write (write includes read), the areas being ${AREAS.join(', ')}`;

/** `scopes: unknown scope links:admin; each scope is …`: the first value that is no scope, named. */
function unknownScope(args: ValidationArguments): string {
  const values = Array.isArray(args.value) ? (args.value as unknown[]) : [args.value];
  const bad = String(values.find((v) => !SCOPES.includes(v as never)));
  // named, but not echoed at any length
  const shown = bad.length > 40 ? `${bad.slice(0, 40)}…` : bad;
  return `unknown scope ${JSON.stringify(shown)}; ${SCOPE_RULE}`;
}

/** A name with something visible in it and no control characters (it is shown in lists). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it rejects
const NAME_PATTERN = /^(?=.*\S)[^\u0000-\u001f\u007f]*$/s;
const NAME_MESSAGE = 'name must be 1 to 64 characters, not only spaces, no control characters';

const LIST_RULE = `must be a non-empty list of scopes (at most ${SCOPES.length}); ${SCOPE_RULE}`;

/**
 * `expires`: a date-time `YYYY-MM-DD HH:MM:SS` (UTC, the API's format) or ISO 8601 with its
 * offset (`2030-01-31T12:00:00Z`, `2030-01-31T14:00:00+02:00`).
 */
export const EXPIRES_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})|T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))$/;

export const EXPIRES_MESSAGE =
  'must be a date-time YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601 with an offset (2030-01-31T12:00:00Z)';

/** The checks of a named key's fields, shared by add and update. */
export const KeyField = {
  name: () =>
    Stacked(
      IsString(),
      Length(1, 64, { message: NAME_MESSAGE }),
      Matches(NAME_PATTERN, { message: NAME_MESSAGE }),
    ),
  scopes: () =>
    Stacked(
      IsArray({ message: `scopes ${LIST_RULE}` }),
      ArrayMinSize(1, { message: `scopes ${LIST_RULE}` }),
      ArrayMaxSize(SCOPES.length, { message: `scopes ${LIST_RULE}` }),
      IsString({ each: true }),
      IsIn(SCOPES, { each: true, message: unknownScope }),
    ),
  expires: () =>
    Stacked(IsString(), Matches(EXPIRES_PATTERN, { message: `expires ${EXPIRES_MESSAGE}` })),
};

/**
 * The instant of an `expires` matching EXPIRES_PATTERN, or null when it names no real date-time
 * (February 30th, hour 24).
 */
export function parseExpires(value: string): Date | null {
  const m = EXPIRES_PATTERN.exec(value);
  if (!m) return null;
  const [y, mo, d] = [m[1], m[2], m[3]].map(Number);
  const [h, mi, s] = (m[4] !== undefined ? [m[4], m[5], m[6]] : [m[7], m[8], m[9] ?? '0']).map(
    Number,
  );
  const local = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (
    local.getUTCFullYear() !== y ||
    local.getUTCMonth() !== mo - 1 ||
    local.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    return null;
  const date = m[4] !== undefined ? local : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
