import { InvalidFieldError, parseDateTime } from '@app/common';

/**
 * A membership `expiration` sent by an admin: `YYYY-MM-DD HH:MM:SS` (UTC), a real calendar date,
 * in the future (a past date would subscribe the user to an already lapsed plan). 400 naming
 * the field otherwise.
 */
export function parseExpiration(value: string, field = 'expiration', now = new Date()): Date {
  const date = parseDateTime(value);
  if (!date)
    throw new InvalidFieldError(
      field,
      'must be a real date-time formatted YYYY-MM-DD HH:MM:SS (UTC)',
    );
  if (date.getTime() <= now.getTime()) throw new InvalidFieldError(field, 'must be in the future');
  return date;
}
