export * from './keys';
export * from './stats-folder';
export * from './stats-reader';
export * from './stats.module';
export * from './types';
export * from './visit-classifier';
export * from './visit-recorder';
