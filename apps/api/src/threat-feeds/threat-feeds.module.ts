import { Module } from '@nestjs/common';

import { ThreatFeeds } from '@app/links';

import { ThreatFeedsController } from './threat-feeds.controller';

/**
 * The threat feeds' admin view (GET /api/admin/feeds). The worker loads the feeds
 * (apps/worker/src/threat-feeds); DestinationPolicy refuses what they flag.
 */
@Module({
  controllers: [ThreatFeedsController],
  providers: [ThreatFeeds],
  exports: [ThreatFeeds],
})
export class ThreatFeedsModule {}
