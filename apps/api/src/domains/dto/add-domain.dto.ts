import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { RedirectUrlField } from './is-redirect-url';

export class AddDomainDto {
  @ApiProperty({
    example: 'https://go.example.com',
    maxLength: 270,
    description:
      'http(s)://host: no path, query, credentials or port; unique across the service (case-insensitive). ' +
      'Stored and shown lower-cased (IDN as punycode). With DOMAIN_VERIFY=dns the host must resolve to the ' +
      "service's addresses or be a CNAME of its host name.",
  })
  @IsString()
  @MaxLength(270)
  domain: string;

  @ApiPropertyOptional({
    example: 'https://www.example.com',
    maxLength: 2048,
    description: 'Empty or an absolute http(s) URL',
  })
  @IsOptionalNotNull()
  @RedirectUrlField()
  redirectroot?: string;

  @ApiPropertyOptional({
    example: 'https://www.example.com/404',
    maxLength: 2048,
    description: 'Empty or an absolute http(s) URL',
  })
  @IsOptionalNotNull()
  @RedirectUrlField()
  redirect404?: string;
}
