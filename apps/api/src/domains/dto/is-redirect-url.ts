import { ValidateBy, ValidationOptions } from 'class-validator';

import { isHttpUrl } from '@app/common';

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
