import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AppConfig } from '@app/config';

import { dataSourceOptions, ENTITIES } from './data-source';
import { ReadReplicas } from './read-replicas';

/**
 * The TypeORM connection (the primary) and a repository for every entity, and the read replicas'
 * explicit path (ReadReplicas), available to every feature module.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.DATABASE_URL, config.DB_POOL_SIZE),
        retryAttempts: 3,
        retryDelay: 1000,
      }),
    }),
    TypeOrmModule.forFeature(ENTITIES),
  ],
  providers: [ReadReplicas],
  exports: [TypeOrmModule, ReadReplicas],
})
export class DatabaseModule {}
