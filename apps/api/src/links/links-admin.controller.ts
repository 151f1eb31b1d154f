import { Controller, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';

import { AdminOnly, IdParam, MessageRoute } from '@app/common';

import { LinksService } from './links.service';

@ApiTags('admin')
@ApiBearerAuth()
@AdminOnly()
@Controller('api/admin/url')
export class LinksAdminController {
  constructor(private readonly links: LinksService) {}

  @MessageRoute(Put(':id/disable'), {
    summary: "Disable any user's short link (admin)",
    description:
      'The link answers the 451 page instead of forwarding, on every api instance at once; its owner sees `disabled: true` in its details.',
  })
  async disable(@IdParam('id') id: number) {
    await this.links.setDisabled(id, true);
    return { message: 'Link has been disabled.' };
  }

  @MessageRoute(Put(':id/enable'), { summary: 'Enable a disabled short link again (admin)' })
  async enable(@IdParam('id') id: number) {
    await this.links.setDisabled(id, false);
    return { message: 'Link has been enabled.' };
  }
}
