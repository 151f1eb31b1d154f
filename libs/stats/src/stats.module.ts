import { Global, Module } from '@nestjs/common';

import { ClickCaps } from './click-caps';
import { StatsRangeReader } from './stats-range-reader';
import { StatsReader } from './stats-reader';
import { VisitRecorder } from './visit-recorder';

/** Visit recording and statistics reads, for the api (redirector, link and QR routes). */
@Global()
@Module({
  providers: [VisitRecorder, StatsReader, StatsRangeReader, ClickCaps],
  exports: [VisitRecorder, StatsReader, StatsRangeReader],
})
export class StatsModule {}
