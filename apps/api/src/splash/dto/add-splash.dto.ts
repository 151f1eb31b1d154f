import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, MaxLength, Min } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { IsOptionalUrl } from '../../link-pages/optional-url';
import { MAX_COUNTDOWN, SPLASH_DOC } from './splash-fields';

export class AddSplashDto {
  @ApiProperty({ example: 'Holiday notice', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  @ApiPropertyOptional({
    example: 'Our new collection',
    maxLength: 200,
    description: SPLASH_DOC.title,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200, { message: 'title must be at most 200 characters' })
  title?: string;

  @ApiPropertyOptional({
    example: 'Have a look before you go on.',
    maxLength: 2000,
    description: SPLASH_DOC.message,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2000, { message: 'message must be at most 2000 characters' })
  message?: string;

  @ApiPropertyOptional({
    example: 'https://cdn.example/collection.jpg',
    maxLength: 2048,
    description: SPLASH_DOC.image,
  })
  @IsOptionalNotNull()
  @IsOptionalUrl()
  image?: string;

  @ApiPropertyOptional({
    example: 'https://shop.example/collection',
    maxLength: 2048,
    description: SPLASH_DOC.link,
  })
  @IsOptionalNotNull()
  @IsOptionalUrl()
  link?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_COUNTDOWN,
    default: 5,
    description: SPLASH_DOC.countdown,
  })
  @IsOptionalNotNull()
  @IsInt({ message: `countdown must be an integer from 0 to ${MAX_COUNTDOWN}` })
  @Min(0, { message: `countdown must be an integer from 0 to ${MAX_COUNTDOWN}` })
  @Max(MAX_COUNTDOWN, { message: `countdown must be an integer from 0 to ${MAX_COUNTDOWN}` })
  countdown?: number;

  @ApiPropertyOptional({
    example: 'Continue',
    minLength: 1,
    maxLength: 100,
    default: 'Continue',
    description: SPLASH_DOC.button,
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 100, { message: 'button must be 1 to 100 characters' })
  button?: string;
}
