import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { ShortCodesModule } from '../short-codes/short-codes.module';
import { TakedownsModule } from '../takedowns/takedowns.module';
import { LinkHealthReader } from './link-health-reader';
import { LinkListQuery } from './link-list-query';
import { LinkReferences } from './link-references';
import { LinkViews } from './link-views';
import { LinksAdminController } from './links-admin.controller';
import { LinksController } from './links.controller';
import { LinksService } from './links.service';

/** Short links: /api/urls, /api/url/add, /api/url/:id, /api/url/:id/health, /api/url/:id/update|delete. */
@Module({
  imports: [LinkCacheModule, DestinationsModule, TakedownsModule, ShortCodesModule],
  controllers: [LinksController, LinksAdminController],
  providers: [LinksService, LinkReferences, LinkViews, LinkListQuery, LinkHealthReader],
  exports: [LinksService],
})
export class LinksModule {}
