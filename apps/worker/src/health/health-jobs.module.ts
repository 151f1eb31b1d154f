import { Module } from '@nestjs/common';

import { PublicUrls } from '@app/common';

import { WorkerLinkCacheModule } from '../link-cache/worker-link-cache.module';
import { LinkHealthRunner } from './link-health-runner';
import { LinkHealthStore } from './link-health-store';
import { LinkHealthProcessor } from './link-health.processor';
import { TargetProbe } from './target-probe';

/**
 * Destination health (docs/link-health.md): the probe job, its store (the one writer of
 * `link_health`) and the probe. The link cache invalidation is the worker's one `link` cache
 * member (WorkerLinkCache, provided by WorkerLinkCacheModule).
 */
@Module({
  imports: [WorkerLinkCacheModule],
  providers: [LinkHealthProcessor, LinkHealthRunner, LinkHealthStore, TargetProbe, PublicUrls],
})
export class HealthJobsModule {}
