import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Matches, MaxLength, ValidateBy } from 'class-validator';

import {
  DATE_TIME_PATTERN,
  appLinkProblem,
  AppPlatform,
  IsOptionalNotNull,
  isPositiveId,
  IsPositiveId,
  Stacked,
  IsWebUrl,
  validationRule as rule,
} from '@app/common';

import { ALIAS_PATTERN } from '../alias';
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

/**
 * The checks of the fields url/add and url/:id/update share. The two bodies differ in what may be
 * left out or sent as null (their own IsOptional / IsOptionalNotNull) and in their documentation.
 */
export const LinkField = {
  url: () => Stacked(IsString(), IsWebUrl()),
  custom: () =>
    Stacked(
      IsString(),
      Matches(ALIAS_PATTERN, {
        message: 'custom must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -',
      }),
    ),
  expiry: () =>
    Stacked(
      IsString(),
      Matches(DATE_TIME_PATTERN, { message: 'expiry must be a date-time YYYY-MM-DD HH:MM:SS' }),
    ),
  /** password, title, description */
  text: (max: number) => Stacked(IsString(), MaxLength(max)),
  /** `title` (255) and `description` (500): documented and checked alike on add and update */
  label: (max: 255 | 500) =>
    Stacked(
      ApiPropertyOptional({ maxLength: max }),
      IsOptionalNotNull(),
      IsString(),
      MaxLength(max),
    ),
  pixels: () =>
    Stacked(
      IsArray(),
      ArrayMaxSize(50),
      IsPositiveId({ each: true, message: 'pixels must be an array of pixel ids (integers)' }),
    ),
};
