import { Module } from '@nestjs/common';

import { ThreatFeedsModule } from '../threat-feeds/threat-feeds.module';
import { HealthController } from './health.controller';

@Module({ imports: [ThreatFeedsModule], controllers: [HealthController] })
export class HealthModule {}
