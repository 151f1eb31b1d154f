import { Type } from '@nestjs/common';
import { DECORATORS, PartialType } from '@nestjs/swagger';

import { BadRequestError } from './errors';

/**
 * The body of an update, made from the body of an add: every field may be left out, but a field
 * that is sent is validated as on add, `null` included (as IsOptionalNotNull does), so that only
 * the fields sent change. The add's documented `default`s are dropped: leaving a field out of an
 * update keeps the stored value, it does not reset it to the default.
 */
export function PartialUpdateType<T>(add: Type<T>): Type<Partial<T>> {
  const update = PartialType(add, { skipNullProperties: false });
  const keys: string[] =
    Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, update.prototype) ?? [];
  for (const key of keys.map((k) => k.replace(/^:/, ''))) {
    const documented = {
      ...Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, update.prototype, key),
    };
    delete documented.default;
    Reflect.defineMetadata(DECORATORS.API_MODEL_PROPERTIES, documented, update.prototype, key);
  }
  return update;
}

/**
 * The 400 of an update that sends no field (every field left out), one message for every update
 * route: `Send at least one field to change: <the fields its body class documents, alphabetical>`.
 * `body` is the validated body (an instance of its class, as the validation pipe hands it over).
 */
export function assertSendsAField(body: object): void {
  if (Object.values(body).some((v) => v !== undefined)) return;
  const keys: string[] =
    Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, Object.getPrototypeOf(body)) ?? [];
  const fields = [...new Set(keys.map((k) => k.replace(/^:/, '')))].sort();
  throw new BadRequestError(`Send at least one field to change: ${fields.join(', ')}`);
}
