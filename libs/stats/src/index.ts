export * from './stats-reader';
export * from './stats.module';
export * from './types';
export * from './visit-recorder';
