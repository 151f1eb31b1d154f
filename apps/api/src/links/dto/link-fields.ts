import { registerDecorator, ValidationOptions } from 'class-validator';

import { countryCode } from '../countries';
import { isAppLink, isHttpUrl } from '@app/common';

const MAX_INT = 2147483647;

export const LINK_TYPES = ['direct', 'frame', 'splash', 'overlay'] as const;
export type LinkTypeName = (typeof LINK_TYPES)[number];

const isId = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_INT;

function rule(name: string, message: string, test: (value: unknown) => boolean) {
  return (options?: ValidationOptions) =>
    (object: object, propertyName: string): void =>
      registerDecorator({
        name,
        target: object.constructor,
        propertyName,
        options: { message, ...options },
        validator: { validate: test },
      });
}

/** `url`: absolute http(s), at most 2048 characters. */
export const IsTargetUrl = rule(
  'isTargetUrl',
  'url must be an absolute http(s) URL of at most 2048 characters, without credentials or spaces',
  (v) => typeof v === 'string' && isHttpUrl(v),
);

/** `domain`: a branded domain id (integer) or its host name / `http(s)://host` (string). */
export const IsDomainRef = rule(
  'isDomainRef',
  'domain must be a branded domain id (integer) or its host name',
  (v) => isId(v) || (typeof v === 'string' && v.length >= 1 && v.length <= 270),
);

/** `type`: direct, frame, splash, overlay, or an overlay id (integer). */
export const IsLinkType = rule(
  'isLinkType',
  'type must be one of direct, frame, splash, overlay, or an overlay id (integer)',
  (v) => isId(v) || (typeof v === 'string' && (LINK_TYPES as readonly string[]).includes(v)),
);

/** `geotarget[].location`: an ISO 3166-1 alpha-2 code or an English country name. */
export const IsCountry = rule(
  'isCountry',
  'location must be an ISO 3166-1 alpha-2 code (such as DE) or an English country name',
  (v) => typeof v === 'string' && countryCode(v) !== null,
);

/** `deeplink.apple` / `deeplink.google`: a URI of any scheme but script, data and file ones. */
export const IsAppLink = rule(
  'isAppLink',
  'must be an absolute URI of at most 2048 characters (app scheme or https), not javascript:, data:, vbscript: or file:',
  (v) => typeof v === 'string' && isAppLink(v),
);
