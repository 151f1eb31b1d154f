import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';

import { IsOptionalNotNull } from '@app/common';
import { WEBHOOK_EVENTS } from '@app/database';

import { EVENTS_MESSAGE, SECRET_MESSAGE, SECRET_PATTERN } from './add-webhook.dto';

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://hooks.example.com/short-links', maxLength: 2000 })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2000)
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: WEBHOOK_EVENTS, example: ['link.created'] })
  @IsOptionalNotNull()
  @IsArray({ message: EVENTS_MESSAGE })
  @ArrayMinSize(1, { message: EVENTS_MESSAGE })
  @ArrayMaxSize(WEBHOOK_EVENTS.length, { message: EVENTS_MESSAGE })
  @IsIn(WEBHOOK_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ApiPropertyOptional({
    minLength: 16,
    maxLength: 128,
    description: 'A new signing secret (deliveries not yet sent are signed with it)',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(16, 128, { message: SECRET_MESSAGE })
  @Matches(SECRET_PATTERN, { message: SECRET_MESSAGE })
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
