import { Type, ValidationError, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';

import { BadRequestError } from './errors';

/** `urls[3].geotarget[2].location`: array indexes in brackets, properties after dots. */
function pathOf(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = pathOf(parent, e.property);
    const own = Object.entries(e.constraints ?? {}).map(([rule, msg]) => {
      if (rule === 'whitelistValidation') return `${path}: unknown field`;
      if (rule === 'nestedValidation') return `${path}: must be an object`;
      return `${path}: ${msg.replace(new RegExp(`^${e.property} `), '')}`;
    });
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

/** Formats class-validator errors as one message that names each bad field. */
export function validationMessage(errors: ValidationError[]): string {
  const messages = [...new Set(flatten(errors))];
  return messages.slice(0, 5).join('; ') || 'Invalid request';
}

const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
};

/** The global pipe: whitelist, reject unknown fields, transform, and name the field on failure. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => new BadRequestError(validationMessage(errors)),
  });
}

/**
 * Validates one plain object as the global pipe validates a body (for bodies that carry several,
 * such as bulk creation): the DTO instance, or a BadRequestError naming the fields.
 */
export async function validateBody<T extends object>(type: Type<T>, plain: unknown): Promise<T> {
  if (!plain || typeof plain !== 'object' || Array.isArray(plain))
    throw new BadRequestError('must be a JSON object');
  const instance = plainToInstance(type, plain, { enableImplicitConversion: false });
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length) throw new BadRequestError(validationMessage(errors));
  return instance;
}
