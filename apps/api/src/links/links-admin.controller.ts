import { Controller, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AdminOnly, ApiErrors, ApiOkMessage, IdParam } from '@app/common';

import { LinksService } from './links.service';

@ApiTags('admin')
@ApiBearerAuth()
@AdminOnly()
@Controller('api/admin/url')
export class LinksAdminController {
  constructor(private readonly links: LinksService) {}

  @Put(':id/disable')
  @ApiOperation({
    summary: "Disable any user's short link (admin)",
    description:
      'The link answers the 451 page instead of forwarding, on every api instance at once; its owner sees `disabled: true` in its details.',
  })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async disable(@IdParam('id') id: number) {
    await this.links.setDisabled(id, true);
    return { message: 'Link has been disabled.' };
  }

  @Put(':id/enable')
  @ApiOperation({ summary: 'Enable a disabled short link again (admin)' })
  @ApiOkMessage()
  @ApiErrors(400, 403, 404)
  async enable(@IdParam('id') id: number) {
    await this.links.setDisabled(id, false);
    return { message: 'Link has been enabled.' };
  }
}
