import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Matches, MaxLength } from 'class-validator';

import { DATE_TIME_PATTERN, IsOptionalNotNull, IsPositiveId, IsWebUrl, Stacked } from '@app/common';

import { ALIAS_PATTERN } from './alias';

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
