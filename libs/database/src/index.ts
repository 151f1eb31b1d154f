export * from './data-source';
export * from './database.module';
export * from './entities';
export * from './pg-errors';
export * from './transformers';
export { FREE_LIMITS, PRO_LIMITS } from './migrations/1732200000000-initial-schema';
export * from './read-replicas';
export * from './replica-lag';
export * from './pg-array';
