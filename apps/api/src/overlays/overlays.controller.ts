import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { ApiErrors, ApiOkList, Auth, PageQueryDto, Principal } from '@app/common';

import { OverlayView } from './dto/overlay.view';
import { OverlaysService } from './overlays.service';

@ApiTags('CTA overlays')
@ApiBearerAuth()
@Controller('api')
export class OverlaysController {
  constructor(private readonly overlays: OverlaysService) {}

  @Get('overlay')
  @ApiOperation({
    summary: "The caller's CTA overlays, newest first",
    description: 'List only through this API.',
  })
  @ApiOkList('cta', OverlayView)
  @ApiErrors(400, 403)
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.overlays.list(auth, query);
  }
}
