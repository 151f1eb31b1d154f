import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { WEBHOOK_EVENTS } from '@app/database';

import { WebhookField } from './add-webhook.dto';

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://hooks.example.com/short-links', maxLength: 2000 })
  @IsOptionalNotNull()
  @WebhookField.url()
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: WEBHOOK_EVENTS, example: ['link.created'] })
  @IsOptionalNotNull()
  @WebhookField.events()
  events?: string[];

  @ApiPropertyOptional({
    minLength: 16,
    maxLength: 128,
    description: 'A new signing secret (deliveries not yet sent are signed with it)',
  })
  @IsOptionalNotNull()
  @WebhookField.secret()
  secret?: string;

  @ApiPropertyOptional({
    example: true,
    description:
      'true re-enables a webhook the service disabled (after a day of failed deliveries) and clears its failure record; false disables it',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  active?: boolean;
}
