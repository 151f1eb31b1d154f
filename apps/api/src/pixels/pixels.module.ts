import { Module } from '@nestjs/common';

import { LinkCacheModule } from '../link-cache/link-cache.module';
import { PixelsController } from './pixels.controller';
import { PixelsService } from './pixels.service';

/** Tracking pixels: /api/pixels, /api/pixel/add, /api/pixel/:id/update|delete. */
@Module({ imports: [LinkCacheModule], controllers: [PixelsController], providers: [PixelsService] })
export class PixelsModule {}
