import { Module } from '@nestjs/common';

import { StatsFold } from '@app/stats';

import { StatsFoldProcessor } from './stats-fold.processor';

@Module({ providers: [StatsFold, StatsFoldProcessor] })
export class StatsJobsModule {}
