import { Module } from '@nestjs/common';

import { LinkCacheAccess } from '@app/links';

import { WorkerLinkCache } from './worker-link-cache';

/**
 * The worker's one `link` cache on the bus (WorkerLinkCache, as LinkCacheAccess): shared by the
 * job modules that change what short codes resolve to (imports, the threat feeds' re-scan, destination health).
 */
@Module({
  providers: [{ provide: LinkCacheAccess, useClass: WorkerLinkCache }],
  exports: [LinkCacheAccess],
})
export class WorkerLinkCacheModule {}
