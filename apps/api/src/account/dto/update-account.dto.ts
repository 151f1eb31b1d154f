import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsString, Length, Matches, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { USERNAME_PATTERN } from '../../users/dto/create-user.dto';

export class UpdateAccountDto {
  @ApiPropertyOptional({ example: 'me@example.com', maxLength: 254 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  email?: string;

  @ApiPropertyOptional({
    example: 'jane.doe',
    pattern: USERNAME_PATTERN.source,
    description: '3–32 of A-Z a-z 0-9 _ . -; unique (case-insensitive)',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 3 to 32 characters of A-Z, a-z, 0-9, _, . or -',
  })
  username?: string;

  @ApiPropertyOptional({ minLength: 5, maxLength: 128 })
  @IsOptionalNotNull()
  @IsString()
  @Length(5, 128, { message: 'password must be 5 to 128 characters' })
  password?: string;
}
