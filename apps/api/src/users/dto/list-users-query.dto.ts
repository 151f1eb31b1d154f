import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { PageQueryDto } from '@app/common';

export const USER_FILTERS = ['admin', 'free', 'pro'] as const;
export type UserFilter = (typeof USER_FILTERS)[number];

/** `GET /api/users` query: filter, e-mail search, and `limit` (default 100, max 1000) / `page`. */
export class ListUsersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: USER_FILTERS,
    description:
      '`admin`: admins; `pro`: an active paid plan; `free`: the free plan or a lapsed paid plan',
  })
  @IsOptional()
  @IsIn(USER_FILTERS, { message: 'filter must be one of admin, free, pro' })
  filter?: UserFilter;

  @ApiPropertyOptional({
    maxLength: 254,
    description:
      'Search: users whose e-mail contains this text, case-insensitive (`%` and `_` are literal)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  // eslint-disable-next-line no-control-regex -- rejecting control characters is the point
  @Matches(/^[^\u0000-\u001f\u007f]*$/, { message: 'email must not contain control characters' })
  email?: string;

  @ApiPropertyOptional({
    description: 'Users per page (default 100, larger values are clamped to 1000)',
    minimum: 1,
  })
  declare limit?: number;
}
