import { Global, Module } from '@nestjs/common';

import { CacheBus } from './cache/cache-bus';
import { RedisService } from './redis.service';

/** The Redis connection and the invalidation bus of the shared caches, for every module. */
@Global()
@Module({ providers: [RedisService, CacheBus], exports: [RedisService, CacheBus] })
export class RedisModule {}
