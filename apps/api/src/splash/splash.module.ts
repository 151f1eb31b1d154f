import { Module } from '@nestjs/common';

import { SplashController } from './splash.controller';
import { SplashService } from './splash.service';

/** Custom splash pages: GET /api/splash (list only). */
@Module({ controllers: [SplashController], providers: [SplashService] })
export class SplashModule {}
