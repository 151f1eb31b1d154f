import { ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

import { IsOptionalNotNull, PartialUpdateType } from '@app/common';

import { AddWebhookDto, WebhookField } from './add-webhook.dto';

/** `url` and `events` as on add; a new `secret`; `active`. Every field optional (at least one). */
export class UpdateWebhookDto extends PartialUpdateType(OmitType(AddWebhookDto, ['secret'])) {
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
