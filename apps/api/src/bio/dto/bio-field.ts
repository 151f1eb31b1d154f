import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsObject,
  IsString,
  Length,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import { Stacked } from '@app/common';
import { BIO_THEMES } from '@app/database';

import { IsImageUrl } from '../bio-fields';
import { BioLinkDto, BioSocialsDto } from './bio-parts.dto';

/**
 * The checks of the fields bio/add and bio/:id/update share. The two bodies differ in what may be
 * left out or sent as null (their own IsOptional / IsOptionalNotNull) and in their documentation.
 */
export const BioField = {
  name: () => Stacked(IsString(), Length(1, 100, { message: 'name must be 1 to 100 characters' })),
  alias: () =>
    Stacked(
      IsString(),
      MaxLength(64, { message: 'alias must be 3 to 64 characters of A-Z, a-z, 0-9, _ and -' }),
    ),
  title: () =>
    Stacked(IsString(), MaxLength(255, { message: 'title must be at most 255 characters' })),
  description: () =>
    Stacked(IsString(), MaxLength(500, { message: 'description must be at most 500 characters' })),
  avatar: () => Stacked(IsString(), IsImageUrl()),
  theme: () => IsIn(BIO_THEMES, { message: 'theme must be one of light, dark' }),
  links: () =>
    Stacked(
      IsArray({ message: 'links must be an array of {title, url}' }),
      ArrayMaxSize(50, { message: 'links must have at most 50 entries' }),
      ValidateNested({ each: true }),
      Type(() => BioLinkDto),
    ),
  socials: () =>
    Stacked(
      IsObject({ message: 'socials must be an object {network: url}' }),
      ValidateNested(),
      Type(() => BioSocialsDto),
    ),
};
