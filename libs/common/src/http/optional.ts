import { ValidateIf } from 'class-validator';

/**
 * The field may be left out, but when it is sent it is validated, `null` included.
 * (class-validator's `@IsOptional()` lets `null` through, which would reach the service and a
 * NOT NULL column.)
 */
export const IsOptionalNotNull = () =>
  ValidateIf((_object: object, value: unknown) => value !== undefined);
