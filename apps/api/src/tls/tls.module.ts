import { Module, OnModuleInit } from '@nestjs/common';

import { LinkCacheModule } from '../link-cache/link-cache.module';
import { PublicModule } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { TlsAskHandler } from './tls-ask.handler';

/**
 * Automatic HTTPS for branded domains: the public `/tls/ask` path that a TLS-terminating proxy
 * (Caddy's on-demand TLS, see docs/https.md) asks before it obtains a certificate for a host.
 */
@Module({
  imports: [PublicModule, LinkCacheModule],
  providers: [TlsAskHandler],
})
export class TlsModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly handler: TlsAskHandler,
  ) {}

  onModuleInit(): void {
    this.routes.register('/tls/', (req, res, ctx) => this.handler.handle(req, res, ctx));
  }
}
