import { Module } from '@nestjs/common';

import { LinkPagesModule } from '../link-pages/link-pages.module';
import { OverlaysController } from './overlays.controller';

/** CTA overlays: /api/overlay, /api/overlay/:id, /api/overlay/add, /api/overlay/:id/update|delete. */
@Module({
  imports: [LinkPagesModule],
  controllers: [OverlaysController],
})
export class OverlaysModule {}
