import { QueryFailedError } from 'typeorm';

import { mapError } from './exception.filter';

/** A failure as TypeORM throws it: the driver's error (its SQLSTATE `code`) wrapped. */
function pgFailure(code: string, message = 'failed'): QueryFailedError {
  return new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), { code }));
}

describe('mapError: Postgres failures', () => {
  it.each(['40P01', '40001', '55P03'])(
    'a transaction Postgres ended for a concurrent one (%s) is a 409 that says to send it again',
    (code) => {
      const mapped = mapError(pgFailure(code, 'deadlock detected'));
      expect(mapped.status).toBe(409);
      expect(mapped.message).toMatch(/nothing was saved, send it again/);
      expect(mapped.message).not.toMatch(/deadlock/);
    },
  );

  it('keeps the other mappings: unique 409, invalid input 400, unreachable 503, the rest 500', () => {
    expect(mapError(pgFailure('23505')).status).toBe(409);
    expect(mapError(pgFailure('23505')).message).toBe('A resource with this value already exists');
    expect(mapError(pgFailure('22P02')).status).toBe(400);
    expect(mapError(pgFailure('57P01')).status).toBe(503);
    expect(mapError(pgFailure('XX000', 'internal detail')).status).toBe(500);
    expect(mapError(pgFailure('XX000', 'internal detail')).message).not.toMatch(/internal detail/);
  });
});
