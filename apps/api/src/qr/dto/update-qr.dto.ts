import { ApiHideProperty, ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Allow, IsDefined, IsString, MaxLength } from 'class-validator';

import { IsOptionalNotNull, PartialUpdateType } from '@app/common';

import { CreateQrDto, DATA_DESCRIPTION, LOGO_DESCRIPTION, QR_DATA_SCHEMA } from './create-qr.dto';

/**
 * `data` is required and checked against the code's type; the type itself cannot change (a body
 * with `type` is a 400). Sending background, foreground or logo re-renders the image.
 * `background`, `foreground` and `name` as on create.
 */
export class UpdateQrDto extends PartialUpdateType(
  PickType(CreateQrDto, ['background', 'foreground', 'name']),
) {
  @ApiProperty({
    description: `The new content, in the shape of the code's type. ${DATA_DESCRIPTION}`,
    ...QR_DATA_SCHEMA,
  })
  @IsDefined({ message: 'required' })
  data: unknown;

  @ApiPropertyOptional({
    description: `${LOGO_DESCRIPTION} Omit to keep the current logo.`,
    maxLength: 2048,
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  logo?: string;

  /** Not updatable: declared only so that the service can answer "type: cannot be changed". */
  @ApiHideProperty()
  @Allow()
  type?: unknown;
}
