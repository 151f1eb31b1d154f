import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { LinkPages } from './link-pages.service';

/** The service behind the CTA overlay and custom splash page routes (LinkPages). */
@Module({
  imports: [LinkCacheModule, DestinationsModule],
  providers: [LinkPages],
  exports: [LinkPages],
})
export class LinkPagesModule {}
