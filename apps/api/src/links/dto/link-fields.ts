import { ValidateBy } from 'class-validator';

import { appLinkProblem, AppPlatform, isPositiveId, validationRule as rule } from '@app/common';

import { countryCode } from '../countries';

export const LINK_TYPES = ['direct', 'frame', 'splash', 'overlay'] as const;
export type LinkTypeName = (typeof LINK_TYPES)[number];

/** `type`: direct, frame, splash, overlay, or an overlay id (integer). */
export const IsLinkType = rule(
  'isLinkType',
  'type must be one of direct, frame, splash, overlay, or an overlay id (integer)',
  (v) =>
    isPositiveId(v) || (typeof v === 'string' && (LINK_TYPES as readonly string[]).includes(v)),
);

/** `geotarget[].location`: an ISO 3166-1 alpha-2 code or an English country name. */
export const IsCountry = rule(
  'isCountry',
  'location must be an ISO 3166-1 alpha-2 code (such as DE) or an English country name',
  (v) => typeof v === 'string' && countryCode(v) !== null,
);

/** `deeplink.apple` / `deeplink.google`: an allowed URI for that platform (appLinkProblem). */
export const IsAppLink = (platform: AppPlatform) =>
  ValidateBy(
    {
      name: 'isAppLink',
      validator: { validate: (v) => typeof v === 'string' && appLinkProblem(v, platform) === null },
    },
    {
      message: (args) =>
        `$property ${typeof args.value === 'string' ? (appLinkProblem(args.value, platform) ?? '') : 'must be a string'}`,
    },
  );
