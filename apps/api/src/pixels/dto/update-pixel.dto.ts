import { IntersectionType, PickType } from '@nestjs/swagger';

import { PartialUpdateType } from '@app/common';

import { AddPixelDto } from './add-pixel.dto';

/** `tag` required, `name` optional; the type cannot change. */
export class UpdatePixelDto extends IntersectionType(
  PartialUpdateType(PickType(AddPixelDto, ['name'])),
  PickType(AddPixelDto, ['tag']),
) {}
