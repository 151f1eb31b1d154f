import { Module } from '@nestjs/common';

import { PublicUrls } from '@app/common';

import { LogoLoader } from './logo-loader';
import { QrImageStore } from './qr-image-store';
import { QrRenderSweep } from './qr-render-sweep';
import { QrProcessor } from './qr.processor';
import { QrRenderer } from './qr-renderer';

/** QR jobs of the worker: render a code's PNG and SVG, delete them, re-queue lost renders. */
@Module({
  providers: [QrProcessor, QrRenderer, LogoLoader, QrImageStore, QrRenderSweep, PublicUrls],
})
export class QrJobsModule {}
