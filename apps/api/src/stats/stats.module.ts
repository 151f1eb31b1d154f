import { Module } from '@nestjs/common';

import { ExportSlots } from './export-slots';
import { LiveStreams } from './live-streams';
import { LiveController } from './live.controller';
import { ReachController } from './reach.controller';
import { ReachService } from './reach.service';
import { StatsExportService } from './stats-export.service';
import { StatsController } from './stats.controller';
import { StatsService } from './stats.service';

/**
 * Statistics over date ranges and CSV exports: /api/url/:id/stats, /api/qr/:id/stats,
 * /api/stats, /api/urls/export, /api/url/:id/stats/export; live visit streams (/api/url/:id/live,
 * /api/stats/live) and reach (/api/stats/reach).
 */
@Module({
  controllers: [StatsController, LiveController, ReachController],
  providers: [StatsService, StatsExportService, ExportSlots, LiveStreams, ReachService],
})
export class StatsApiModule {}
