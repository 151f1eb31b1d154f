import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsString, Length, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

export class UpdateAccountDto {
  @ApiPropertyOptional({ example: 'me@example.com', maxLength: 254 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  email?: string;

  @ApiPropertyOptional({ minLength: 5, maxLength: 128 })
  @IsOptionalNotNull()
  @IsString()
  @Length(5, 128, { message: 'password must be 5 to 128 characters' })
  password?: string;
}
