import { Module } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { PixelsController } from './pixels.controller';
import { PixelsService } from './pixels.service';

/** Tracking pixels: /api/pixels, /api/pixel/add, /api/pixel/:id/update|delete. */
@Module({ imports: [PublicModule], controllers: [PixelsController], providers: [PixelsService] })
export class PixelsModule {}
