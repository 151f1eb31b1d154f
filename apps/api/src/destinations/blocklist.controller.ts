import { Body, Controller, Delete, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AdminOnly,
  ApiErrors,
  ApiOkFields,
  Auth,
  IdParam,
  ListRoute,
  MessageRoute,
  PageQueryDto,
  Principal,
} from '@app/common';

import { BlocklistService } from './blocklist.service';
import { AddBlocklistEntryDto } from './dto/add-blocklist-entry.dto';
import { BlocklistEntryAddedView, BlocklistEntryView } from './dto/blocklist-entry.view';

const EFFECT =
  'A blocked destination is refused when links, targeting rules, redirects or QR link data are created or changed (400 "url: this destination is blocked"), and existing links to it answer the 451 page on every api instance within moments.';

@ApiTags('admin')
@ApiBearerAuth()
@AdminOnly()
@Controller('api/admin/blocklist')
export class BlocklistController {
  constructor(private readonly blocklist: BlocklistService) {}

  @ListRoute('', 'blocklist', BlocklistEntryView, {
    summary: 'Blocked destinations added through the API (admin; list, key blocklist)',
    description: `Entries of BLOCKLIST_FILE apply too but are not listed here. ${EFFECT}`,
  })
  list(@Query() query: PageQueryDto) {
    return this.blocklist.list(query);
  }

  @Post('add')
  @ApiOperation({
    summary: 'Block a domain or a keyword (admin): {error, id, entry}',
    description: EFFECT,
  })
  @ApiOkFields(BlocklistEntryAddedView)
  @ApiErrors(400, 403, 409)
  add(@Auth() auth: Principal, @Body() dto: AddBlocklistEntryDto) {
    return this.blocklist.add(auth, dto);
  }

  @MessageRoute(Delete(':id/delete'), { summary: 'Unblock (admin)' })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.blocklist.remove(auth, id);
    return { message: 'Blocklist entry has been deleted successfully.' };
  }
}
