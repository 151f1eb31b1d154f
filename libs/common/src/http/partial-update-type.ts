import { Type } from '@nestjs/common';
import { DECORATORS, PartialType } from '@nestjs/swagger';

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
