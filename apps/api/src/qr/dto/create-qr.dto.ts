import { Type } from '@nestjs/common';
import {
  ApiProperty,
  ApiPropertyOptional,
  ApiPropertyOptions,
  getSchemaPath,
} from '@nestjs/swagger';
import { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { IsDefined, IsIn, IsString, Matches, MaxLength } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { QR_TYPES, QrType } from '@app/database';
import { DEFAULT_BACKGROUND, DEFAULT_FOREGROUND } from '@app/qr';

import { NO_CONTROL_CHARS } from '../qr-payload';

export const DATA_DESCRIPTION = `Depends on \`type\`:
- \`text\`: string, 1–4296 characters
- \`link\`: absolute http(s) URL
- \`email\`: an e-mail address, or \`{email, subject?, body?}\` (the short link forwards to \`mailto:\`)
- \`phone\`: 3–20 digits with an optional leading \`+\` (\`tel:\`)
- \`sms\`: \`{phone, message?}\` (\`SMSTO:phone:message\`; the short link forwards to \`sms:phone?body=\`)
- \`wifi\`: \`{ssid, pass?, encryption?: "WPA"|"WEP"|"nopass", hidden?: boolean}\` (\`password\` is accepted for \`pass\`; encryption defaults to WPA with a password, nopass without). \`ssid\`: 1–32 characters (at most 32 bytes). The pass is 8–64 characters for WPA, 5–64 for WEP, and must be empty for nopass
- \`vcard\`: \`{fname?, lname?, org?, phone?, cell?, fax?, email?, site?, street?, city?, state?, zip?, country?}\`, at least one (vCard 3.0 download)

Unknown keys or a wrong shape are a 400 naming the field (\`data.ssid: required\`).`;

export const LOGO_DESCRIPTION = `PNG or JPEG logo composited in the centre (error correction H): an http(s) URL,
fetched by the worker (public addresses only, 5 s, 2 MB), or a file name in the server's assets
folder (\`[A-Za-z0-9._-]\`, .png/.jpg/.jpeg). An empty string means no logo. A logo that
cannot be fetched or decoded leaves the code \`status: "failed"\` with a \`reason\`.`;

export const COLOR_DESCRIPTION =
  '`rgb(R,G,B)`, each 0–255; foreground and background need a contrast ratio of at least 2:1';

const line = (maxLength: number, minLength?: number): SchemaObject => ({
  type: 'string',
  maxLength,
  ...(minLength ? { minLength } : {}),
});
const VCARD_FIELDS = ['fname', 'lname', 'org', 'phone', 'cell', 'fax', 'email', 'site'];

const EMAIL_DATA: SchemaObject = {
  title: 'QrEmailData',
  type: 'object',
  properties: { email: line(254, 3), subject: line(255), body: line(2000) },
  required: ['email'],
  additionalProperties: false,
};
const SMS_DATA: SchemaObject = {
  title: 'QrSmsData',
  type: 'object',
  properties: { phone: line(20, 3), message: line(1000) },
  required: ['phone'],
  additionalProperties: false,
};
const WIFI_DATA: SchemaObject = {
  title: 'QrWifiData',
  type: 'object',
  properties: {
    ssid: line(32, 1),
    pass: {
      type: 'string',
      maxLength: 64,
      description: 'WPA: 8–64 characters; WEP: 5–64; nopass: empty or absent',
    },
    password: { type: 'string', maxLength: 64, description: 'Accepted for pass' },
    encryption: { type: 'string', enum: ['WPA', 'WEP', 'nopass'] },
    hidden: { type: 'boolean' },
  },
  required: ['ssid'],
  additionalProperties: false,
};
const VCARD_DATA: SchemaObject = {
  title: 'QrVcardData',
  type: 'object',
  properties: Object.fromEntries(
    [...VCARD_FIELDS, 'street', 'city', 'state', 'zip', 'country'].map((f) => [f, line(255)]),
  ),
  minProperties: 1,
  additionalProperties: false,
};

/** The shape of `data` for each type (see DATA_DESCRIPTION). */
export const QR_DATA_BY_TYPE: Record<QrType, SchemaObject> = {
  text: {
    type: 'string',
    minLength: 1,
    maxLength: 4296,
    description: 'The text, 1–4296 characters',
  },
  link: { type: 'string', description: 'An absolute http(s) URL' },
  email: {
    anyOf: [{ type: 'string', description: 'An e-mail address' }, EMAIL_DATA],
  },
  phone: { type: 'string', description: '3–20 digits with an optional leading +' },
  sms: SMS_DATA,
  wifi: WIFI_DATA,
  vcard: VCARD_DATA,
};

/**
 * Any shape of `data` (updates, whose type is the code's own): `anyOf`, as an e-mail object is also
 * a valid vCard object. Bodies and views that carry `type` beside `data` are instead one schema per
 * type (`qrVariants`), so that a generated client tells a vCard from an e-mail.
 */
export const QR_DATA_SCHEMA: { anyOf: SchemaObject[] } = {
  anyOf: [
    { type: 'string', description: 'text (1–4296), link (http(s) URL), email address or phone' },
    EMAIL_DATA,
    SMS_DATA,
    WIFI_DATA,
    VCARD_DATA,
  ],
};

const pascal = (type: string) => type[0].toUpperCase() + type.slice(1);

/**
 * One OpenAPI model per QR type: `base`'s fields, `type` fixed to that type and `data` of its shape
 * (named `<prefix><Type><suffix>`, e.g. CreateQrVcardDto), and the `oneOf` with a discriminator on
 * `type` that refers to them. The wire format is that of `base` plus `type` and `data`.
 */
export function qrVariants(
  base: Type<unknown>,
  name: (type: string) => string,
  dataDescription: string,
): { models: Array<Type<unknown>>; schema: SchemaObject } {
  const models = QR_TYPES.map((type) => {
    const Variant = class extends (base as new () => object) {};
    Object.defineProperty(Variant, 'name', { value: name(pascal(type)) });
    // what `design:type` would say of declared fields (the schema of an `anyOf` needs it)
    Reflect.defineMetadata('design:type', String, Variant.prototype, 'type');
    Reflect.defineMetadata('design:type', Object, Variant.prototype, 'data');
    ApiProperty({ enum: [type], example: type })(Variant.prototype, 'type');
    ApiProperty({ description: dataDescription, ...QR_DATA_BY_TYPE[type] } as ApiPropertyOptions)(
      Variant.prototype,
      'data',
    );
    return Variant;
  });
  const refs = Object.fromEntries(QR_TYPES.map((type, i) => [type, getSchemaPath(models[i])]));
  return {
    models,
    schema: {
      oneOf: Object.values(refs).map(($ref) => ({ $ref })),
      discriminator: { propertyName: 'type', mapping: refs },
    },
  };
}

/** The look and name of a QR code, as qr/add takes them. */
export class QrLookDto {
  @ApiPropertyOptional({
    description: `${COLOR_DESCRIPTION}.`,
    example: 'rgb(255,255,255)',
    default: DEFAULT_BACKGROUND,
    maxLength: 32,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  background?: string;

  @ApiPropertyOptional({
    description: `${COLOR_DESCRIPTION}.`,
    example: 'rgb(0,0,0)',
    default: DEFAULT_FOREGROUND,
    maxLength: 32,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  foreground?: string;

  @ApiPropertyOptional({
    description: LOGO_DESCRIPTION,
    maxLength: 2048,
    example: 'https://example.com/logo.png',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  logo?: string;

  @ApiPropertyOptional({ description: 'Name shown in lists.', maxLength: 255, default: '' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(255)
  @Matches(NO_CONTROL_CHARS, { message: 'must not contain control characters' })
  name?: string;
}

/**
 * `qr/add`: `{type, data, ...look}`, documented as one model per type (CREATE_QR_VARIANTS).
 */
export class CreateQrDto extends QrLookDto {
  @ApiProperty({ enum: QR_TYPES, example: 'link' })
  @IsIn(QR_TYPES, { message: `must be one of ${QR_TYPES.join(', ')}` })
  type: QrType;

  @ApiProperty({ description: DATA_DESCRIPTION, ...QR_DATA_SCHEMA })
  @IsDefined({ message: 'required' })
  data: unknown;
}

/** The request body of qr/add as documented: `oneOf` CreateQr<Type>Dto, by `type`. */
export const CREATE_QR_VARIANTS = qrVariants(
  QrLookDto,
  (type) => `CreateQr${type}Dto`,
  'The content, in the shape of this type (see qr/add)',
);
