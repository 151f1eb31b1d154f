import { Module } from '@nestjs/common';

import { LinkCacheModule } from '../link-cache/link-cache.module';
import { ShortCodesModule } from '../short-codes/short-codes.module';
import { Takedowns } from './takedowns';

/** Admin takedowns of short codes and the aliases they reserve (Takedowns). */
@Module({
  imports: [LinkCacheModule, ShortCodesModule],
  providers: [Takedowns],
  exports: [Takedowns],
})
export class TakedownsModule {}
