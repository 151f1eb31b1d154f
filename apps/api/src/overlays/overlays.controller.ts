import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  ApiOkList,
  ApiOkMessage,
  Auth,
  IdParam,
  PageQueryDto,
  Principal,
} from '@app/common';

import { AddOverlayDto } from './dto/add-overlay.dto';
import { OverlayCreatedView, OverlayDetailsView, OverlayView } from './dto/overlay.view';
import { UpdateOverlayDto } from './dto/update-overlay.dto';
import { LinkPages } from '../link-pages/link-pages.service';
import { OVERLAY_PAGES } from './overlay-pages';

const PAGE_DOC =
  'A link of type overlay shows its target in a full-page frame with this box in a corner: the message, ' +
  'and the button (when both `button` and `link` are set) opening `link` in a new tab, in the given colours.';

@ApiTags('CTA overlays')
@ApiBearerAuth()
@Controller('api')
export class OverlaysController {
  constructor(private readonly pages: LinkPages) {}

  @Get('overlay')
  @ApiOperation({ summary: "The caller's CTA overlays, newest first" })
  @ApiOkList('cta', OverlayView)
  @ApiErrors(400, 403)
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.pages.list(OVERLAY_PAGES, auth, query);
  }

  @Get('overlay/:id')
  @ApiOperation({ summary: 'One CTA overlay with everything its box shows: `{error, data}`' })
  @ApiOkData(OverlayDetailsView)
  @ApiErrors(400, 403, 404)
  get(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.pages.get(OVERLAY_PAGES, auth, id);
  }

  @Post('overlay/add')
  @ApiOperation({
    summary: 'Add a CTA overlay: `{error, id}`',
    description: `${PAGE_DOC} 403 past the plan's \`overlay\` count or when the plan has overlays disabled.`,
  })
  @ApiOkFields(OverlayCreatedView)
  @ApiErrors(400, 403, 413)
  add(@Auth() auth: Principal, @Body() dto: AddOverlayDto) {
    return this.pages.add(OVERLAY_PAGES, auth, dto);
  }

  @Put('overlay/:id/update')
  @ApiOperation({
    summary: 'Change a CTA overlay: `{error, message}`',
    description: 'Only the fields sent change; links showing it show the change at once.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404, 413)
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateOverlayDto) {
    await this.pages.update(OVERLAY_PAGES, auth, id, dto);
    return { message: 'Overlay has been updated successfully.' };
  }

  @Delete('overlay/:id/delete')
  @ApiOperation({
    summary: 'Delete a CTA overlay: `{error, message}`',
    description: 'Links that used it become direct links.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.pages.remove(OVERLAY_PAGES, auth, id);
    return { message: 'Overlay has been deleted successfully.' };
  }
}
