import { Module, OnModuleInit } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { PublicModule } from '../public/public.module';
import { ShortCodesModule } from '../short-codes/short-codes.module';
import { PublicRoutes } from '../public/public-routes';
import { PublicResponder } from '../public/responder';
import { QrPublicHandler } from './qr-public.handler';
import { QrLook } from './qr-look';
import { QrRenderQueue } from './qr-render-queue';
import { QrResolver } from './qr-resolver';
import { QrController } from './qr.controller';
import { QrService } from './qr.service';

/**
 * QR codes: the /api/qr routes, and the public `/q/<code>` paths (scans and images), which the
 * redirector hands over through its route registry. QR short links live on PUBLIC_URL only: on a
 * branded domain `/q/…` is a 404.
 */
@Module({
  imports: [PublicModule, DestinationsModule, ShortCodesModule],
  controllers: [QrController],
  providers: [QrService, QrResolver, QrPublicHandler, QrLook, QrRenderQueue],
  exports: [QrService],
})
export class QrModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly handler: QrPublicHandler,
    private readonly respond: PublicResponder,
  ) {}

  onModuleInit(): void {
    this.routes.register('/q/', (req, res, ctx) =>
      ctx.domain === null
        ? this.handler.handle(req, res, ctx.path.slice('/q/'.length))
        : this.respond.notFound(res),
    );
  }
}
