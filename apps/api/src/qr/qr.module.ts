import { Module, OnModuleInit } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { QrPublicHandler } from './qr-public.handler';
import { QrResolver } from './qr-resolver';
import { QrController } from './qr.controller';
import { QrService } from './qr.service';

/**
 * QR codes: the /api/qr routes, and the public `/q/<code>` paths (scans and images), which the
 * redirector hands over through its route registry. QR short links live on PUBLIC_URL only: on a
 * branded domain `/q/…` is a 404.
 */
@Module({
  imports: [PublicModule],
  controllers: [QrController],
  providers: [QrService, QrResolver, QrPublicHandler],
  exports: [QrPublicHandler, QrService],
})
export class QrModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly handler: QrPublicHandler,
  ) {}

  onModuleInit(): void {
    this.routes.register('/q/', (req, res, ctx) =>
      ctx.domainId === null
        ? this.handler.handle(req, res, ctx.path.slice('/q/'.length))
        : this.handler.notFound(res),
    );
  }
}
