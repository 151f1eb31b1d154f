import { Module, OnModuleInit } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { TakedownsModule } from '../takedowns/takedowns.module';
import { ReportPage } from './report-page';
import { ReportsAdminController, ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

/**
 * Abuse reports: the public page `/report` (a form, no script), `POST /api/report`, and the
 * admins' queue (`GET /api/admin/reports`, `PUT /api/admin/report/:id/resolve`).
 */
@Module({
  imports: [PublicModule, TakedownsModule],
  controllers: [ReportsController, ReportsAdminController],
  providers: [ReportsService, ReportPage],
})
export class ReportsModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly page: ReportPage,
  ) {}

  onModuleInit(): void {
    this.routes.register('/report/', (req, res, ctx) => this.page.handle(req, res, ctx), {
      bare: true,
      post: true,
    });
  }
}
