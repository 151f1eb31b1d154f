import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';

import { IsOptionalNotNull, Stacked } from '@app/common';
import { WEBHOOK_EVENTS } from '@app/database';

export const EVENTS_MESSAGE = `events must be a non-empty list of ${WEBHOOK_EVENTS.join(', ')}`;
export const SECRET_PATTERN = /^[\x21-\x7e]{16,128}$/;
export const SECRET_MESSAGE = 'secret must be 16 to 128 printable ASCII characters, no spaces';

/**
 * The checks of the webhook fields (webhook/:id/update takes `url` and `events` from
 * AddWebhookDto and documents its own `secret`, with the same check).
 */
export const WebhookField = {
  url: () => Stacked(IsString(), MaxLength(2000)),
  events: () =>
    Stacked(
      IsArray({ message: EVENTS_MESSAGE }),
      ArrayMinSize(1, { message: EVENTS_MESSAGE }),
      ArrayMaxSize(WEBHOOK_EVENTS.length, { message: EVENTS_MESSAGE }),
      IsIn(WEBHOOK_EVENTS, { each: true, message: EVENTS_MESSAGE }),
    ),
  secret: () =>
    Stacked(
      IsString(),
      Length(16, 128, { message: SECRET_MESSAGE }),
      Matches(SECRET_PATTERN, { message: SECRET_MESSAGE }),
    ),
};

export class AddWebhookDto {
  @ApiProperty({
    example: 'https://hooks.example.com/short-links',
    maxLength: 2000,
    description:
      'Absolute https URL. Never a private, loopback or link-local address (a literal address is refused here; a host name is checked at every delivery, each of its DNS answers); hosts named in WEBHOOK_ALLOW_HOSTS are exempt and may use http.',
  })
  @WebhookField.url()
  url: string;

  @ApiProperty({
    type: [String],
    enum: WEBHOOK_EVENTS,
    example: ['link.created', 'link.clicked'],
    description: 'The events to receive (each once)',
  })
  @WebhookField.events()
  events: string[];

  @ApiPropertyOptional({
    example: 'whsec_3c1f0b9d2a7e48f6b5c4d3e2f1a0b9c8',
    minLength: 16,
    maxLength: 128,
    description: 'The signing secret; generated (whsec_ and 32 random characters) when absent',
  })
  @IsOptionalNotNull()
  @WebhookField.secret()
  secret?: string;
}
