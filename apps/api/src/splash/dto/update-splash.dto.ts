import { PartialUpdateType } from '@app/common';

import { AddSplashDto } from './add-splash.dto';

/** Every field optional (at least one). */
export class UpdateSplashDto extends PartialUpdateType(AddSplashDto) {}
