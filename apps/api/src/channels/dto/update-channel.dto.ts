import { PartialUpdateType } from '@app/common';

import { AddChannelDto } from './add-channel.dto';

/** Every field optional (at least one). */
export class UpdateChannelDto extends PartialUpdateType(AddChannelDto) {}
