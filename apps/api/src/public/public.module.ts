import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { PermanenceModule } from '../permanence/permanence.module';
import { ClickLimiter } from './click-limiter';
import { LinkRouter } from './link-router';
import { MissBudget } from './miss-budget';
import { PasswordGate } from './password-gate';
import { PublicHandler } from './public-handler';
import { PublicRoutes } from './public-routes';
import { PublicResponder } from './responder';
import { RedirectorHandler } from './redirector.handler';

/**
 * The redirector's own providers: PublicModule's, and the starting front's (StartingModule, which
 * serves short links before the database is there) without PublicModule's database imports.
 */
export const REDIRECTOR_PROVIDERS = [
  PublicRoutes,
  PublicResponder,
  PasswordGate,
  LinkRouter,
  ClickLimiter,
  MissBudget,
  { provide: PublicHandler, useClass: RedirectorHandler },
];

/**
 * The public side: the redirector (served by the HTTP front in bootstrap.ts, outside Express),
 * the one way public routes answer (PublicResponder), and the registry through which features
 * serve their own public paths (QR codes `/q/`, campaigns `/r/` and `/u/`).
 */
@Module({
  imports: [LinkCacheModule, DestinationsModule, PermanenceModule],
  providers: REDIRECTOR_PROVIDERS,
  exports: [PublicHandler, PublicRoutes, PublicResponder],
})
export class PublicModule {}
