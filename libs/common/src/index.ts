export * from './auth';
export * from './common.module';
export * from './http';
export * from './pagination';
export * from './rate-limit';
export * from './util';
