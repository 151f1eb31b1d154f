import { IsString, MaxLength, ValidateBy, ValidationOptions } from 'class-validator';

import { isHttpUrl, Stacked } from '@app/common';

/** An empty string (no redirect) or an absolute http(s) URL. */
export function IsRedirectUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isRedirectUrl',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && (value === '' || isHttpUrl(value)),
        defaultMessage: (args) =>
          `${args?.property} must be an empty string or an absolute http(s) URL`,
      },
    },
    options,
  );
}

/** `redirectroot` and `redirect404` of a branded domain: a string of at most 2048 characters, IsRedirectUrl. */
export const RedirectUrlField = () => Stacked(IsString(), MaxLength(2048), IsRedirectUrl());
