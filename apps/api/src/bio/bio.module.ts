import { Module, OnModuleInit } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { PublicModule } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { ShortCodesModule } from '../short-codes/short-codes.module';
import { TakedownsModule } from '../takedowns/takedowns.module';
import { BioController } from './bio.controller';
import { BioPublicHandler } from './bio-public.handler';
import { BioService } from './bio.service';

/**
 * Bio pages: /api/bio, /api/bio/:id, /api/bio/add, /api/bio/:id/update|delete, and the pages
 * themselves at `/<alias>` (short codes of kind `bio`, served through the public handler).
 */
@Module({
  imports: [PublicModule, DestinationsModule, LinkCacheModule, TakedownsModule, ShortCodesModule],
  controllers: [BioController],
  providers: [BioService, BioPublicHandler],
})
export class BioModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly handler: BioPublicHandler,
  ) {}

  onModuleInit(): void {
    this.routes.registerKind('bio', (req, res, code, domain) =>
      this.handler.serve(req, res, code, domain),
    );
  }
}
