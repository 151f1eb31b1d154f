import { registerDecorator, ValidationOptions } from 'class-validator';

import { isHttpUrl } from '@app/common';

/** A URL field of a link page (a button's link, an image): '' (none) or an absolute http(s) URL. */
export function IsOptionalUrl(options?: ValidationOptions) {
  return (object: object, propertyName: string): void =>
    registerDecorator({
      name: 'isOptionalUrl',
      target: object.constructor,
      propertyName,
      options: {
        message:
          '$property must be an empty string or an absolute http(s) URL of at most 2048 characters',
        ...options,
      },
      validator: { validate: (v: unknown) => typeof v === 'string' && (v === '' || isHttpUrl(v)) },
    });
}
