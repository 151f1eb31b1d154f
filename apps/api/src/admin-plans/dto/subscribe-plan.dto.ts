import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';

import { IsOptionalNotNull } from '@app/common';

import { DATE_TIME_PATTERN } from '@app/common';
import { PlanType } from '@app/database';

export const PLAN_TYPES: readonly PlanType[] = ['monthly', 'yearly', 'lifetime'];

export class SubscribePlanDto {
  @ApiProperty({
    enum: PLAN_TYPES,
    description: 'Billing period; sets the expiry when `expiration` is omitted',
  })
  @IsIn(PLAN_TYPES, { message: 'type must be one of monthly, yearly, lifetime' })
  type: PlanType;

  @ApiPropertyOptional({
    example: '2030-01-31 00:00:00',
    pattern: DATE_TIME_PATTERN.source,
    description:
      'Membership expiry (UTC, in the future). Omitted: monthly = now + 1 calendar month (Jan 31 → Feb 28/29), ' +
      'yearly = now + 12 months, lifetime = never. Ignored for a free plan, which never expires.',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(DATE_TIME_PATTERN, {
    message: 'expiration must be a date-time formatted YYYY-MM-DD HH:MM:SS (UTC)',
  })
  expiration?: string;
}
