import { Body, Controller, Delete, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkFields,
  Auth,
  ForArea,
  IdParam,
  ListRoute,
  MessageRoute,
  PageQueryDto,
  Principal,
} from '@app/common';
import { ChannelItemType } from '@app/database';

import { ChannelItemTypePipe } from './channel-item-type.pipe';
import { ChannelsService } from './channels.service';
import { AddChannelDto } from './dto/add-channel.dto';
import { ChannelItemView } from './dto/channel-item.view';
import { ChannelView } from './dto/channel.view';
import { UpdateChannelDto } from './dto/update-channel.dto';

@ApiTags('channels')
@ApiBearerAuth()
@ForArea('channels')
@Controller('api')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @ListRoute('channels', 'channels', ChannelView, {
    summary: "The caller's channels, newest first",
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.channels.list(auth, query);
  }

  @ListRoute(
    'channel/:id',
    'items',
    ChannelItemView,
    {
      summary: "A channel's items, newest assignment first",
      description: 'Items whose link, bio page or QR code has been deleted are not listed.',
    },
    [400, 403, 404],
  )
  items(@Auth() auth: Principal, @IdParam('id') id: number, @Query() query: PageQueryDto) {
    return this.channels.items(auth, id, query);
  }

  @Post('channel/add')
  @ApiOperation({
    summary: 'Create a channel',
    description:
      'name 1-100 characters; description ≤ 500; color #RRGGBB (default #000000); starred default false.',
  })
  @ApiOkFields(ChannelView)
  @ApiErrors(400, 403)
  add(@Auth() auth: Principal, @Body() dto: AddChannelDto) {
    return this.channels.add(auth, dto);
  }

  @MessageRoute(Post('channel/:channelid/assign/:type/:itemid'), {
    summary: 'Assign a link, bio page or QR code to a channel',
    description:
      "The item must be the caller's (404 otherwise). Assigning an item twice is harmless.",
  })
  @ApiParam({ name: 'type', enum: ['links', 'bio', 'qr'] })
  async assign(
    @Auth() auth: Principal,
    @IdParam('channelid') channelId: number,
    @Param('type', ChannelItemTypePipe) type: ChannelItemType,
    @IdParam('itemid') itemId: number,
  ) {
    await this.channels.assign(auth, channelId, type, itemId);
    return { message: 'Item has been assigned to the channel successfully.' };
  }

  @MessageRoute(Put('channel/:id/update'), {
    summary: 'Update a channel',
    description: 'All fields optional; send at least one.',
  })
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateChannelDto) {
    await this.channels.update(auth, id, dto);
    return { message: 'Channel has been updated successfully.' };
  }

  @MessageRoute(Delete('channel/:id/delete'), {
    summary: 'Delete a channel',
    description: 'Its items are unassigned and otherwise untouched.',
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.channels.remove(auth, id);
    return { message: 'Channel has been deleted successfully.' };
  }
}
