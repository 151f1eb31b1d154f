import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

import { IsPositiveId, IsWebUrl, Stacked } from '@app/common';
import { DEVICE_NAMES } from '@app/database';

import { IsAppLink, IsCountry } from './link-fields';

/** `link` of a targeting rule: where the visitors it matches go. */
const TargetLink = (example: string) =>
  Stacked(
    ApiProperty({
      description: 'An absolute http(s) URL (the same rules as `url`)',
      example,
      maxLength: 2048,
    }),
    IsString(),
    IsWebUrl(),
  );

export class GeoTargetDto {
  @ApiProperty({
    description: 'ISO 3166-1 alpha-2 code (any case) or English country name; stored as the code',
    example: 'DE',
    maxLength: 100,
  })
  @IsString()
  @MaxLength(100)
  @IsCountry()
  location: string;

  @TargetLink('https://example.de/')
  link: string;
}

export class DeviceTargetDto {
  @ApiProperty({
    description: 'Matched against the visitor’s user agent (case-insensitive)',
    enum: DEVICE_NAMES,
    example: 'iphone',
  })
  @IsString()
  @Matches(new RegExp(`^(${DEVICE_NAMES.join('|')})$`, 'i'), {
    message: `device must be one of ${DEVICE_NAMES.join(', ')}`,
  })
  device: string;

  @TargetLink('https://apps.apple.com/')
  link: string;
}

export class LanguageTargetDto {
  @ApiProperty({
    description:
      'ISO 639-1 code, matched against Accept-Language in the visitor’s order of preference',
    example: 'fr',
    pattern: '^[A-Za-z]{2}$',
  })
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'language must be an ISO 639-1 code such as en or fr' })
  language: string;

  @TargetLink('https://example.fr/')
  link: string;
}

export class DeepLinkDto {
  @ApiPropertyOptional({
    description:
      'Where iPhone and iPad visitors go: an https or http URL (universal link), itms-apps:, or an app scheme ([a-z][a-z0-9+.-]*), never a browser-internal one (view-source, filesystem, jar, ms-msdt, javascript, data, vbscript, file, blob, about, chrome, x-safari-*, in any letter case)',
    example: 'myapp://product/42',
    maxLength: 2048,
  })
  @IsOptional()
  @IsString()
  @IsAppLink('apple')
  apple?: string;

  @ApiPropertyOptional({
    description:
      'Where Android visitors go: the same, with market: and intent: (its S.browser_fallback_url an http(s) URL)',
    example: 'intent://product/42#Intent;scheme=myapp;package=com.example;end',
    maxLength: 2048,
  })
  @IsOptional()
  @IsString()
  @IsAppLink('google')
  google?: string;
}

export class LinkParameterDto {
  @ApiProperty({ example: 'utm_source', minLength: 1, maxLength: 100 })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;

  @ApiProperty({ example: 'newsletter', maxLength: 500 })
  @IsString()
  @MaxLength(500)
  value: string;
}

export const OPTION_DOC = {
  geotarget:
    'Visitors from a country go to its link (first rule of a country wins). Plan feature "geo". null or [] removes the rules.',
  devicetarget:
    'Visitors on a device go to its link (first matching rule wins; iphone, ipad, android, windows, macos, linux, chromeos match the platform, mobile, tablet, desktop the kind of device). Plan feature "device". null or [] removes the rules.',
  languagetarget:
    'Visitors go to the link of the first of their Accept-Language languages that has a rule. Plan feature "geo". null or [] removes the rules.',
  deeplink:
    'App links: iOS visitors go to `apple`, Android visitors to `google`. Checked before every other rule. Plan feature "device". null removes it.',
  parameters:
    'Query parameters added to every destination (a parameter of the same name in the destination is replaced). Plan feature "parameters". null or [] removes them.',
  forwardquery:
    "The visitor's own query string is added to the destination (its parameters replace those of the same name).",
  metatitle: 'Title shown by link-preview fetchers (Open Graph / Twitter Card). null removes it.',
  metadescription: 'Description shown by link-preview fetchers. null removes it.',
  metaimage: 'Image (absolute http(s) URL) shown by link-preview fetchers. null removes it.',
  status: 'private links are left out of public campaign list pages and bio pages',
  clicklimit:
    'After this many counted visits (every replica together) the link behaves as expired. null removes the limit.',
  expirationredirect:
    'Where an expired or used-up link sends visitors instead of the 410 page (absolute http(s) URL). null removes it.',
  fallbackurl:
    'Where the link sends visitors instead of its url while the target is broken (HEALTH_FAIL_THRESHOLD failed health probes in a row, until 2 good ones; GET /api/url/:id/health). An absolute http(s) URL, checked like url. null or "" removes it.',
};

/** An optional, nullable list of targeting rules of `type`, at most `max`. */
function RuleList(type: new () => object, max: number, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ description, type: [type], nullable: true, maxItems: max }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(max),
    ValidateNested({ each: true }),
    Type(() => type),
  );
}

/**
 * The link options of `url/add` and `url/update` (docs/api-conventions.md#link-options):
 * targeting, deep links, parameters, preview tags, status, click limit, expiration redirect.
 * Every field is optional; `null` means "none" (on update: remove).
 */
export abstract class LinkOptionsDto {
  @RuleList(GeoTargetDto, 50, OPTION_DOC.geotarget)
  geotarget?: GeoTargetDto[] | null;

  @RuleList(DeviceTargetDto, 20, OPTION_DOC.devicetarget)
  devicetarget?: DeviceTargetDto[] | null;

  @RuleList(LanguageTargetDto, 50, OPTION_DOC.languagetarget)
  languagetarget?: LanguageTargetDto[] | null;

  @ApiPropertyOptional({ description: OPTION_DOC.deeplink, type: DeepLinkDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DeepLinkDto)
  deeplink?: DeepLinkDto | null;

  @ApiPropertyOptional({
    description: OPTION_DOC.parameters,
    type: [LinkParameterDto],
    nullable: true,
    maxItems: 20,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => LinkParameterDto)
  parameters?: LinkParameterDto[] | null;

  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    description: OPTION_DOC.forwardquery,
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  forwardquery?: boolean | null;

  @ApiPropertyOptional({
    type: String,
    description: OPTION_DOC.metatitle,
    maxLength: 200,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  metatitle?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: OPTION_DOC.metadescription,
    maxLength: 500,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  metadescription?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: OPTION_DOC.metaimage,
    maxLength: 2048,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @IsWebUrl()
  metaimage?: string | null;

  @ApiPropertyOptional({
    description: OPTION_DOC.status,
    enum: ['public', 'private'],
    default: 'public',
  })
  @IsOptional()
  @IsIn(['public', 'private'])
  status?: 'public' | 'private' | null;

  @ApiPropertyOptional({
    description: OPTION_DOC.clicklimit,
    type: 'integer',
    minimum: 1,
    nullable: true,
  })
  @IsOptional()
  @IsPositiveId()
  clicklimit?: number | null;

  @ApiPropertyOptional({
    type: String,
    description: OPTION_DOC.expirationredirect,
    maxLength: 2048,
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @IsWebUrl()
  expirationredirect?: string | null;

  @ApiPropertyOptional({
    type: String,
    description: OPTION_DOC.fallbackurl,
    maxLength: 2048,
    nullable: true,
  })
  // null and "" remove it; anything else is checked as url is
  @ValidateIf((_, v) => v !== null && v !== undefined && v !== '')
  @IsString()
  @IsWebUrl()
  fallbackurl?: string | null;
}
