import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { ShortCodesModule } from '../short-codes/short-codes.module';
import { FlagAllows } from './flag-allows';
import { Takedowns } from './takedowns';

/**
 * Admin takedowns of short codes and the aliases they reserve (Takedowns), and the allow of a
 * link the re-scan flagged (FlagAllows).
 */
@Module({
  imports: [LinkCacheModule, ShortCodesModule, DestinationsModule],
  providers: [Takedowns, FlagAllows],
  exports: [Takedowns, FlagAllows],
})
export class TakedownsModule {}
