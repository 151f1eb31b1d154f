import { Module } from '@nestjs/common';

import { QrPublicHandler } from './qr-public.handler';
import { QrResolver } from './qr-resolver';
import { QrController } from './qr.controller';
import { QrService } from './qr.service';

/** QR codes: the /api/qr routes, and the public `/q/<code>` handler (scans and images). */
@Module({
  controllers: [QrController],
  providers: [QrService, QrResolver, QrPublicHandler],
  exports: [QrPublicHandler],
})
export class QrModule {}
