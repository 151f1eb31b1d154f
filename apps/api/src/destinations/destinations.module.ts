import { Module } from '@nestjs/common';

import { Blocklist, DestinationPolicy, LinkFlags, SafeBrowsing, ThreatFeeds } from '@app/links';

import { LinkCacheModule } from '../link-cache/link-cache.module';
import { BlocklistController } from './blocklist.controller';
import { BlocklistService } from './blocklist.service';

/**
 * Where the service may send visitors: the blocklist (BLOCKLIST_FILE and the admin routes
 * /api/admin/blocklist) and the DestinationPolicy features call before storing a destination
 * (no loops through the service's own hosts, nothing blocked, flagged by the threat feeds or the
 * online lookup). The redirector screens cached links against the Blocklist too; LinkFlags holds
 * the flags of existing links (the worker's re-scan) that link views show.
 */
@Module({
  imports: [LinkCacheModule],
  controllers: [BlocklistController],
  providers: [Blocklist, BlocklistService, DestinationPolicy, ThreatFeeds, SafeBrowsing, LinkFlags],
  exports: [Blocklist, DestinationPolicy, ThreatFeeds, SafeBrowsing, LinkFlags],
})
export class DestinationsModule {}
