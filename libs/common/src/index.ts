export * from './auth';
export * from './common.module';
export * from './events';
export * from './http';
export * from './pagination';
export * from './rate-limit';
export * from './urls';
export * from './util';
