import { Module, OnModuleInit } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { PublicResponder } from '../public/responder';
import { dashboardDirs, DashboardFiles } from './dashboard-files';
import { DashboardHandler } from './dashboard.handler';

/**
 * The dashboard (apps/web, docs/dashboard.md) at `/app` and `/app/…` on the main host, served
 * by the public front from the files `npm run build` wrote (read once at start). On a branded
 * domain `/app` is an unknown path, like `/q/`.
 */
@Module({ imports: [PublicModule] })
export class DashboardModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly respond: PublicResponder,
  ) {}

  onModuleInit(): void {
    const handler = new DashboardHandler(DashboardFiles.load(dashboardDirs()));
    this.routes.register(
      '/app/',
      (req, res, ctx) =>
        ctx.domain === null
          ? handler.handle(req, res, ctx.path.slice('/app/'.length))
          : this.respond.notFound(res, ctx.domain),
      { bare: true },
    );
  }
}
