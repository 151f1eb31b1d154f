import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { OverlaysController } from './overlays.controller';
import { OverlaysService } from './overlays.service';

/** CTA overlays: /api/overlay, /api/overlay/:id, /api/overlay/add, /api/overlay/:id/update|delete. */
@Module({
  imports: [LinkCacheModule, DestinationsModule],
  controllers: [OverlaysController],
  providers: [OverlaysService],
})
export class OverlaysModule {}
