import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { IsRedirectUrl } from './is-redirect-url';

/** Both optional (the spec makes none mandatory); the domain itself cannot change. */
export class UpdateDomainDto {
  @ApiPropertyOptional({
    example: 'https://www.example.com',
    maxLength: 2048,
    description: 'Empty (none) or an absolute http(s) URL',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @IsRedirectUrl()
  redirectroot?: string;

  @ApiPropertyOptional({
    example: 'https://www.example.com/404',
    maxLength: 2048,
    description: 'Empty (none) or an absolute http(s) URL',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @IsRedirectUrl()
  redirect404?: string;
}
