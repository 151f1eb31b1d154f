import { PartialUpdateType } from '@app/common';

import { AddOverlayDto } from './add-overlay.dto';

/** Every field optional (at least one). */
export class UpdateOverlayDto extends PartialUpdateType(AddOverlayDto) {}
