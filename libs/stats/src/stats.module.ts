import { Global, Module } from '@nestjs/common';

import { LiveHub } from './live/live-hub';
import { LivePublisher } from './live/live-publisher';
import { ClickCaps } from './record/click-caps';
import { ReachReader } from './read/reach-reader';
import { StatsRangeReader } from './read/stats-range-reader';
import { StatsReader } from './read/stats-reader';
import { VisitRecorder } from './record/visit-recorder';

/** Visit recording and statistics reads, for the api (redirector, link and QR routes). */
@Global()
@Module({
  providers: [
    VisitRecorder,
    StatsReader,
    StatsRangeReader,
    ClickCaps,
    LivePublisher,
    LiveHub,
    ReachReader,
  ],
  exports: [VisitRecorder, StatsReader, StatsRangeReader, LiveHub, ReachReader],
})
export class StatsModule {}
