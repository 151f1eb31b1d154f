import { Module } from '@nestjs/common';

import { LinkPagesModule } from '../link-pages/link-pages.module';
import { SplashController } from './splash.controller';

/** Custom splash pages: /api/splash, /api/splash/:id, /api/splash/add, /api/splash/:id/update|delete. */
@Module({
  imports: [LinkPagesModule],
  controllers: [SplashController],
})
export class SplashModule {}
