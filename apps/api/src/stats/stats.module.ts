import { Module } from '@nestjs/common';

import { ExportSlots } from './export-slots';
import { StatsExportService } from './stats-export.service';
import { StatsController } from './stats.controller';
import { StatsService } from './stats.service';

/**
 * Statistics over date ranges and CSV exports: /api/url/:id/stats, /api/qr/:id/stats,
 * /api/stats, /api/urls/export, /api/url/:id/stats/export.
 */
@Module({
  controllers: [StatsController],
  providers: [StatsService, StatsExportService, ExportSlots],
})
export class StatsApiModule {}
