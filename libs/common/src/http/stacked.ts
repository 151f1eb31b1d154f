import { applyDecorators } from '@nestjs/common';

type AnyDecorator = ClassDecorator | MethodDecorator | PropertyDecorator;

/**
 * One decorator for several, applied as if they were stacked in this order above the declaration
 * (the last one first, as TypeScript applies a stack). Metadata is recorded in the same order
 * (class-validator's messages, the OpenAPI responses), so a stack replaced by it changes nothing.
 */
export function Stacked(...decorators: AnyDecorator[]) {
  return applyDecorators(...[...decorators].reverse());
}
