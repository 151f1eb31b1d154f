import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { SplashController } from './splash.controller';
import { SplashService } from './splash.service';

/** Custom splash pages: /api/splash, /api/splash/:id, /api/splash/add, /api/splash/:id/update|delete. */
@Module({
  imports: [LinkCacheModule, DestinationsModule],
  controllers: [SplashController],
  providers: [SplashService],
})
export class SplashModule {}
