import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsString, Length, Matches, MaxLength } from 'class-validator';

import { DATE_TIME_PATTERN, IsOptionalNotNull, IsPositiveId } from '@app/common';

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,32}$/;

export class CreateUserDto {
  @ApiProperty({
    example: 'jane.doe',
    pattern: USERNAME_PATTERN.source,
    description: '3–32 of A-Z a-z 0-9 _ . -; unique (case-insensitive)',
  })
  @IsString()
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 3 to 32 characters of A-Z, a-z, 0-9, _, . or -',
  })
  username: string;

  @ApiProperty({
    example: 'jane@example.com',
    maxLength: 254,
    description: 'Unique (case-insensitive)',
  })
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  email: string;

  @ApiProperty({ minLength: 5, maxLength: 128 })
  @IsString()
  @Length(5, 128, { message: 'password must be 5 to 128 characters' })
  password: string;

  @ApiPropertyOptional({
    example: 2,
    description: 'Plan id (default: the free plan); an unknown id is a 400',
  })
  @IsOptionalNotNull()
  @IsPositiveId({ message: 'planid must be a positive integer' })
  planid?: number;

  @ApiPropertyOptional({
    example: '2030-01-31 00:00:00',
    pattern: DATE_TIME_PATTERN.source,
    description:
      'Membership expiry, UTC, in the future. Without it a paid plan does not expire; a free plan never expires (ignored).',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(DATE_TIME_PATTERN, {
    message: 'expiration must be a date-time formatted YYYY-MM-DD HH:MM:SS (UTC)',
  })
  expiration?: string;
}
