import { PipeTransform } from '@nestjs/common';

import { InvalidFieldError } from '@app/common';
import { ChannelItemType } from '@app/database';

export const CHANNEL_ITEM_TYPES: readonly ChannelItemType[] = ['links', 'bio', 'qr'];

/** The `:type` path parameter of channel assignment: `links`, `bio` or `qr`, else 400 naming `type`. */
export class ChannelItemTypePipe implements PipeTransform<string, ChannelItemType> {
  transform(value: string): ChannelItemType {
    if (!(CHANNEL_ITEM_TYPES as readonly string[]).includes(value)) {
      throw new InvalidFieldError('type', `must be one of ${CHANNEL_ITEM_TYPES.join(', ')}`);
    }
    return value as ChannelItemType;
  }
}
