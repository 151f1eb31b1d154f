import { Module } from '@nestjs/common';

import { LinkCache } from './link-cache';
import { PublicHandler } from './public-handler';
import { PublicRoutes } from './public-routes';
import { RedirectorHandler } from './redirector.handler';

/**
 * The public side: the redirector (served by the HTTP front in bootstrap.ts, outside Express),
 * the link cache (other features call `LinkCache.forget*` after changing what a link resolves to)
 * and the registry of public routes (the QR module registers `/q/`).
 */
@Module({
  providers: [LinkCache, PublicRoutes, { provide: PublicHandler, useClass: RedirectorHandler }],
  exports: [PublicHandler, LinkCache, PublicRoutes],
})
export class PublicModule {}
