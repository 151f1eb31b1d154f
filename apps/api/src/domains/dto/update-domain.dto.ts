import { ApiPropertyOptional } from '@nestjs/swagger';

import { IsOptionalNotNull } from '@app/common';

import { RedirectUrlField } from './is-redirect-url';

/** Both optional (the spec makes none mandatory); the domain itself cannot change. */
export class UpdateDomainDto {
  @ApiPropertyOptional({
    example: 'https://www.example.com',
    maxLength: 2048,
    description: 'Empty (none) or an absolute http(s) URL',
  })
  @IsOptionalNotNull()
  @RedirectUrlField()
  redirectroot?: string;

  @ApiPropertyOptional({
    example: 'https://www.example.com/404',
    maxLength: 2048,
    description: 'Empty (none) or an absolute http(s) URL',
  })
  @IsOptionalNotNull()
  @RedirectUrlField()
  redirect404?: string;
}
