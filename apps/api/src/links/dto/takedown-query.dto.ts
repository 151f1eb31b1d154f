import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

import { LinkKind } from '@app/database';

/** `PUT /api/admin/url/:id/disable|enable?kind=…`: which id space `:id` is in. */
export class TakedownQueryDto {
  @ApiPropertyOptional({
    enum: ['link', 'bio', 'qr'],
    description:
      'Without it `:id` is any short code by its link or bio page id (the id `/api/url/:id` and `/api/bio/:id` show). ' +
      '`link` / `bio`: the code must be of that kind. `qr`: `:id` is a QR code id (`/api/qr/:id`).',
  })
  @IsOptional()
  @IsIn(['link', 'bio', 'qr'], { message: 'kind must be link, bio or qr' })
  kind?: LinkKind;
}
