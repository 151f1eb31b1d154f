export * from './rate-limit.middleware';
export * from './redis-throttler.storage';
