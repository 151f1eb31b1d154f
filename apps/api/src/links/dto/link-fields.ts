import { isAppLink, isPositiveId, validationRule as rule } from '@app/common';

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

/** `deeplink.apple` / `deeplink.google`: a URI of any scheme but script, data and file ones. */
export const IsAppLink = rule(
  'isAppLink',
  'must be an absolute URI of at most 2048 characters (app scheme or https), not javascript:, data:, vbscript: or file:',
  (v) => typeof v === 'string' && isAppLink(v),
);
