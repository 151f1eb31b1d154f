import { IsInt, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';

import { httpUrlProblem } from '../util/web-url';
import { MAX_ID } from './id-param';
import { Stacked } from './stacked';

/**
 * A class-validator rule of this project: `Rule()` checks the field with `test`, and a failure
 * reads `message` (`$property` is the field's name) unless the options give another.
 */
export function validationRule(name: string, message: string, test: (value: unknown) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    ValidateBy({ name, validator: { validate: test } }, { message, ...options });
}

/** A positive 32-bit integer: a database id. */
export const isPositiveId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_ID;

/** A positive 32-bit integer id (a database id). */
export const IsPositiveId = (options?: ValidationOptions) =>
  Stacked(IsInt(options), Min(1, options), Max(MAX_ID, options));

/**
 * An absolute http(s) URL of at most 2048 characters, without credentials or spaces, whose host is
 * letters, digits, `-` and `.` (httpUrlProblem); the message says which rule failed.
 */
export const IsWebUrl = (options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isWebUrl',
      validator: { validate: (v) => typeof v === 'string' && httpUrlProblem(v) === null },
    },
    {
      message: (args) =>
        `$property ${typeof args.value === 'string' ? (httpUrlProblem(args.value) ?? '') : 'must be an absolute http(s) URL of at most 2048 characters, without credentials or spaces'}`,
      ...options,
    },
  );
