import { Global, Module } from '@nestjs/common';

import { ClickCaps } from './record/click-caps';
import { StatsRangeReader } from './read/stats-range-reader';
import { StatsReader } from './read/stats-reader';
import { VisitRecorder } from './record/visit-recorder';

/** Visit recording and statistics reads, for the api (redirector, link and QR routes). */
@Global()
@Module({
  providers: [VisitRecorder, StatsReader, StatsRangeReader, ClickCaps],
  exports: [VisitRecorder, StatsReader, StatsRangeReader],
})
export class StatsModule {}
