import { registerDecorator, ValidationOptions } from 'class-validator';

import { isHttpUrl } from '@app/common';

/** The longest countdown a splash page shows. */
export const MAX_COUNTDOWN = 600;

/** '' (none) or an absolute http(s) URL. */
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

export const SPLASH_DOC = {
  title: 'Heading of the page ("" for none)',
  message: 'Text of the page',
  image: 'An image shown on the page: absolute http(s) URL ("" for none)',
  link: 'A link shown with the image (the image links to it too): absolute http(s) URL ("" for none)',
  countdown: `Seconds before the visitor is forwarded (0 to ${MAX_COUNTDOWN}); 0 = only when the visitor clicks the button`,
  button: 'Text of the button that forwards to the link’s target',
};
