import { Module } from '@nestjs/common';

import { PublicUrls } from '@app/common';
import { LinkFlags, SafeBrowsing, ThreatFeeds } from '@app/links';

import { WorkerLinkCacheModule } from '../link-cache/worker-link-cache.module';
import { LinkRescan } from './link-rescan';
import { ThreatFeedLoader } from './threat-feed-loader';

/**
 * Threat feeds (THREAT_FEEDS): loaded into Redis at start and every THREAT_FEED_MINUTES, each
 * refresh followed by a re-scan of the links' targets (LinkRescan), which also runs the online
 * lookup's re-scans and re-checks.
 */
@Module({
  imports: [WorkerLinkCacheModule],
  providers: [ThreatFeedLoader, LinkRescan, ThreatFeeds, SafeBrowsing, LinkFlags, PublicUrls],
  exports: [ThreatFeedLoader, LinkRescan],
})
export class ThreatFeedJobsModule {}
