import { Module } from '@nestjs/common';

import { ChannelsController } from './channels.controller';
import { ChannelsService } from './channels.service';

/** Channels and their items: /api/channels, /api/channel/:id, add, update, delete, assign. */
@Module({ controllers: [ChannelsController], providers: [ChannelsService] })
export class ChannelsModule {}
