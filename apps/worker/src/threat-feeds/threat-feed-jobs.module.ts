import { Module } from '@nestjs/common';

import { ThreatFeedLoader } from './threat-feed-loader';

/** Threat feeds (THREAT_FEEDS): loaded into Redis at start and every THREAT_FEED_MINUTES. */
@Module({ providers: [ThreatFeedLoader], exports: [ThreatFeedLoader] })
export class ThreatFeedJobsModule {}
