import { ValidationError, ValidationPipe } from '@nestjs/common';

import { BadRequestError } from './errors';

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = parent ? `${parent}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([rule, msg]) =>
      rule === 'whitelistValidation'
        ? `${path}: unknown field`
        : `${path}: ${msg.replace(new RegExp(`^${e.property} `), '')}`,
    );
    return [...own, ...flatten(e.children ?? [], path)];
  });
}

/** Formats class-validator errors as one message that names each bad field. */
export function validationMessage(errors: ValidationError[]): string {
  const messages = [...new Set(flatten(errors))];
  return messages.slice(0, 5).join('; ') || 'Invalid request';
}

/** The global pipe: whitelist, reject unknown fields, transform, and name the field on failure. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestError(validationMessage(errors)),
  });
}
