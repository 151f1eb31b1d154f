import { Module } from '@nestjs/common';

import { LogoLoader } from './logo-loader';
import { QrImageStore } from './qr-image-store';
import { QrProcessor } from './qr.processor';
import { QrRenderer } from './qr-renderer';

/** QR jobs of the worker: render a code's PNG and SVG, delete them. */
@Module({ providers: [QrProcessor, QrRenderer, LogoLoader, QrImageStore] })
export class QrJobsModule {}
