export * from './redis.module';
export * from './redis.service';
