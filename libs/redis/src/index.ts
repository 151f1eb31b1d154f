export * from './batched-get';
export * from './redis.module';
export * from './redis.service';
