import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PageQueryDto } from '@app/common';

import {
  EMAIL_PATTERN,
  MAX_DETAILS,
  MAX_EMAIL,
  MAX_REPORT_URL,
  REPORT_REASONS,
} from '../report-rules';

/** `POST /api/report`: a short link of this service and why it is reported. */
export class CreateReportDto {
  @ApiProperty({
    example: 'https://s.example/abc123',
    description: 'The short link: `<PUBLIC_URL>/<alias>` or `<verified branded domain>/<alias>`',
    maxLength: MAX_REPORT_URL,
  })
  @IsString({ message: 'must be a string' })
  @MaxLength(MAX_REPORT_URL, { message: `at most ${MAX_REPORT_URL} characters` })
  url: string;

  @ApiProperty({ enum: REPORT_REASONS, example: 'phishing' })
  @IsIn(REPORT_REASONS, { message: `must be one of ${REPORT_REASONS.join(', ')}` })
  reason: string;

  @ApiPropertyOptional({ example: 'Asks for my bank password', maxLength: MAX_DETAILS })
  @IsOptional()
  @IsString({ message: 'must be text' })
  @MaxLength(MAX_DETAILS, { message: `at most ${MAX_DETAILS} characters` })
  details?: string;

  @ApiPropertyOptional({
    example: 'reporter@example.com',
    description: 'To hear back; shown to the administrators only, never to the link owner',
    maxLength: MAX_EMAIL,
  })
  @IsOptional()
  @IsString({ message: 'must be an e-mail address' })
  @MaxLength(MAX_EMAIL, { message: 'must be an e-mail address' })
  @Matches(EMAIL_PATTERN, { message: 'must be an e-mail address' })
  email?: string;
}

export class CreatedReportResponse {
  @ApiProperty({ example: 12, description: 'The report id' })
  id: number;
}

export const REPORT_STATUSES = ['open', 'dismissed', 'disabled'] as const;

export class ListReportsDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: REPORT_STATUSES, description: 'Only reports of this status' })
  @IsOptional()
  @IsIn(REPORT_STATUSES, { message: `must be one of ${REPORT_STATUSES.join(', ')}` })
  status?: (typeof REPORT_STATUSES)[number];
}

export const RESOLVE_ACTIONS = ['dismiss', 'disable'] as const;
export type ResolveAction = (typeof RESOLVE_ACTIONS)[number];

export class ResolveReportDto {
  @ApiProperty({
    enum: RESOLVE_ACTIONS,
    description:
      '`dismiss`: nothing wrong; `disable`: take the link down (as `PUT /api/admin/url/:id/disable`: it answers 451)',
  })
  @IsIn(RESOLVE_ACTIONS, { message: 'must be dismiss or disable' })
  action: ResolveAction;
}
