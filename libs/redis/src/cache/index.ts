export * from './cache-bus';
export * from './invalidation-log';
export * from './shared-cache';
