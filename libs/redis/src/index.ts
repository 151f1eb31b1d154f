export * from './batched-get';
export * from './cache';
export * from './redis.module';
export * from './redis.service';
export * from './redis-client';
export * from './key-slot';
export * from './slot-routes';
