import { Module } from '@nestjs/common';

import { OverlaysController } from './overlays.controller';
import { OverlaysService } from './overlays.service';

/** CTA overlays: GET /api/overlay (list only). */
@Module({ controllers: [OverlaysController], providers: [OverlaysService] })
export class OverlaysModule {}
