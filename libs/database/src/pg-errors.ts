import { QueryFailedError } from 'typeorm';

/**
 * Postgres failures, read one way everywhere: through TypeORM (a QueryFailedError wraps the
 * driver's error) or straight from `pg`. Codes: https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
interface DriverError {
  code?: string;
  constraint?: string;
  message?: string;
  name?: string;
}

/** Errors of a value the client sent (bad text for a type, out of range, too long, bad encoding). */
const INVALID_INPUT = new Set(['22P02', '22003', '22001', '22021']);

/** Failures that mean "the database is not there right now" (network, shutdown, too many connections). */
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Connection is closed|ECONNREFUSED/i;

function driverError(err: unknown): DriverError | undefined {
  if (err instanceof QueryFailedError) return err.driverError as DriverError;
  return err && typeof err === 'object' ? (err as DriverError) : undefined;
}

/** A unique index refused the row (`constraint`: that index only). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = driverError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** A row this one refers to is gone (or was never there). */
export function isForeignKeyViolation(err: unknown): boolean {
  return driverError(err)?.code === '23503';
}

/** The unique index a unique violation hit, if any. */
export function violatedConstraint(err: unknown): string | undefined {
  const e = driverError(err);
  return e?.code === '23505' ? e.constraint : undefined;
}

/** Postgres refused a value as such (a client's input that slipped past validation). */
export function isInvalidInput(err: unknown): boolean {
  return err instanceof QueryFailedError && INVALID_INPUT.has(driverError(err)?.code ?? '');
}

/**
 * Postgres ended this transaction to let a concurrent one through: a deadlock (`40P01`), a
 * serialization failure (`40001`) or a lock it could not take (`55P03`). Nothing of it was
 * written; the same request sent again succeeds.
 */
export function isConcurrentConflict(err: unknown): boolean {
  const code = driverError(err)?.code;
  return code === '40P01' || code === '40001' || code === '55P03';
}

/** The database cannot be reached right now (503, not 500). */
export function isUnavailable(err: unknown): boolean {
  const e = driverError(err);
  if (e?.code && UNAVAILABLE.has(e.code)) return true;
  return (
    e?.name === 'CannotConnectAlreadyConnectedError' || UNAVAILABLE_MESSAGE.test(e?.message ?? '')
  );
}
