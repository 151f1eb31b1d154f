import { Param, PipeTransform } from '@nestjs/common';

import { InvalidFieldError } from './errors';

const MAX_ID = 2147483647;

/** Parses a path id: a positive 32-bit integer, else 400 naming the parameter. */
export class IdPipe implements PipeTransform<string, number> {
  constructor(private readonly name: string) {}

  transform(value: string): number {
    if (!/^[0-9]{1,10}$/.test(value ?? '')) throw new InvalidFieldError(this.name, 'must be a positive integer');
    const n = Number(value);
    if (n < 1 || n > MAX_ID) throw new InvalidFieldError(this.name, 'must be a positive integer');
    return n;
  }
}

/** `@IdParam('id') id: number`: a validated integer path parameter. */
export const IdParam = (name: string) => Param(name, new IdPipe(name));
