import { Controller, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';

import { AdminOnly, Auth, IdParam, MessageRoute, Principal } from '@app/common';

import { FlagAllows } from '../takedowns/flag-allows';
import { Takedowns } from '../takedowns/takedowns';
import { TakedownQueryDto } from './dto/takedown-query.dto';

@ApiTags('admin')
@ApiBearerAuth()
@AdminOnly()
@Controller('api/admin/url')
export class LinksAdminController {
  constructor(
    private readonly takedowns: Takedowns,
    private readonly allows: FlagAllows,
  ) {}

  @MessageRoute(Put(':id/disable'), {
    summary: "Disable any user's short code: link, bio page or QR code (admin)",
    description:
      'The code answers the 451 page instead of forwarding (a bio page instead of its page, a QR code when scanned), ' +
      "on every api instance at once; its owner sees `disabled: true` in a link's details. Its alias stays reserved " +
      'for its owner until an admin enables it, also when the owner deletes the code: creating it again is a 403 ' +
      'for the owner and a 409 for anyone else. `:id` is the link or bio page id; `?kind=qr` makes it a QR code id.',
  })
  async disable(
    @Auth() auth: Principal,
    @IdParam('id') id: number,
    @Query() query: TakedownQueryDto,
  ) {
    const kind = await this.takedowns.set(auth, id, true, query.kind);
    return { message: `${Takedowns.nameOf(kind)} has been disabled.` };
  }

  @MessageRoute(Put(':id/enable'), {
    summary: 'Enable a disabled short code again (admin)',
    description:
      'Undoes `disable` (same `:id` and `kind`) and releases the alias it reserved, also after its owner deleted the code.',
  })
  async enable(
    @Auth() auth: Principal,
    @IdParam('id') id: number,
    @Query() query: TakedownQueryDto,
  ) {
    const kind = await this.takedowns.set(auth, id, false, query.kind);
    return { message: `${Takedowns.nameOf(kind)} has been enabled.` };
  }

  @MessageRoute(Post(':id/allow'), {
    summary: 'Clear the flag of a link the threat feeds or the online lookup flagged (admin)',
    description:
      'For a false positive: the link forwards again on every api instance at once, its details show its own ' +
      '`status` and `flag: null` again, and the targets that were flagged are never flagged again for this link ' +
      '(the allow is per link and target: other links with the same target are flagged as usual). ' +
      'A link without a flag is left as it is. `:id` is the link id.',
  })
  async allow(@Auth() auth: Principal, @IdParam('id') id: number) {
    const cleared = await this.allows.allow(auth, id);
    return {
      message: cleared ? 'The link has been allowed.' : 'The link has no flag to clear.',
    };
  }
}
