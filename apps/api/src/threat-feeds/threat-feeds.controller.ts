import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AdminOnly, ApiOkData } from '@app/common';
import { ThreatFeeds } from '@app/links';

import { ThreatFeedView, threatFeedView } from './threat-feed.view';

@ApiTags('admin')
@ApiBearerAuth()
@AdminOnly()
@Controller('api/admin/feeds')
export class ThreatFeedsController {
  constructor(private readonly feeds: ThreatFeeds) {}

  @Get()
  @ApiOperation({
    summary: 'Threat feeds and their loads (admin): {error, data: [feed]}',
    description:
      'One entry per feed of THREAT_FEEDS, in order. The worker loads each at start and every THREAT_FEED_MINUTES; a destination a feed flags is refused on create and update (400 "url: flagged as <type> by <name>"). A load that fails keeps the previous set and shows its error.',
  })
  @ApiOkData(ThreatFeedView, true)
  async list() {
    const now = Date.now();
    return { data: (await this.feeds.states()).map((f) => threatFeedView(f, now)) };
  }
}
