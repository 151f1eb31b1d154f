import { Body, Controller, Delete, Get, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkFields,
  ApiOkList,
  ApiOkMessage,
  Auth,
  IdParam,
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
@Controller('api')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get('channels')
  @ApiOperation({ summary: "The caller's channels, newest first" })
  @ApiOkList('channels', ChannelView)
  @ApiErrors(400, 403)
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.channels.list(auth, query);
  }

  @Get('channel/:id')
  @ApiOperation({
    summary: "A channel's items, newest assignment first",
    description: 'Items whose link, bio page or QR code has been deleted are not listed.',
  })
  @ApiOkList('items', ChannelItemView)
  @ApiErrors(400, 403, 404)
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

  @Post('channel/:channelid/assign/:type/:itemid')
  @ApiOperation({
    summary: 'Assign a link, bio page or QR code to a channel',
    description:
      "The item must be the caller's (404 otherwise). Assigning an item twice is harmless.",
  })
  @ApiParam({ name: 'type', enum: ['links', 'bio', 'qr'] })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async assign(
    @Auth() auth: Principal,
    @IdParam('channelid') channelId: number,
    @Param('type', ChannelItemTypePipe) type: ChannelItemType,
    @IdParam('itemid') itemId: number,
  ) {
    await this.channels.assign(auth, channelId, type, itemId);
    return { message: 'Item has been assigned to the channel successfully.' };
  }

  @Put('channel/:id/update')
  @ApiOperation({
    summary: 'Update a channel',
    description: 'All fields optional; send at least one.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateChannelDto) {
    await this.channels.update(auth, id, dto);
    return { message: 'Channel has been updated successfully.' };
  }

  @Delete('channel/:id/delete')
  @ApiOperation({
    summary: 'Delete a channel',
    description: 'Its items are unassigned and otherwise untouched.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.channels.remove(auth, id);
    return { message: 'Channel has been deleted successfully.' };
  }
}
