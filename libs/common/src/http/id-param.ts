import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';

import { InvalidFieldError } from './errors';

/** The largest id (Postgres `integer`). */
export const MAX_ID = 2147483647;

/** A path id: a positive 32-bit integer written in plain decimal digits, else 400 naming it. */
export function parseId(name: string, value: unknown): number {
  if (typeof value !== 'string' || !/^[0-9]{1,10}$/.test(value))
    throw new InvalidFieldError(name, 'must be a positive integer');
  const n = Number(value);
  if (n < 1 || n > MAX_ID) throw new InvalidFieldError(name, 'must be a positive integer');
  return n;
}

const RawId = createParamDecorator((name: string, ctx: ExecutionContext): number =>
  parseId(name, ctx.switchToHttp().getRequest<{ params: Record<string, string> }>().params[name]),
);

/**
 * `@IdParam('id') id: number`: a validated integer path parameter, documented in OpenAPI. It reads
 * the raw path segment (a custom decorator, so the global ValidationPipe cannot turn `1e3` or
 * `0x10` into a number first).
 */
export const IdParam =
  (name: string): ParameterDecorator =>
  (target, key, index) => {
    RawId(name)(target, key, index);
    if (key !== undefined) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor;
      ApiParam({ name, type: Number, required: true, description: 'positive integer id' })(
        target,
        key,
        descriptor,
      );
    }
  };
