import { Module } from '@nestjs/common';

import { StatsFolder } from '@app/stats';

import { StatsFoldProcessor } from './stats-fold.processor';

@Module({ providers: [StatsFolder, StatsFoldProcessor] })
export class StatsJobsModule {}
