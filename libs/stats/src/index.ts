export * from './click-caps';
export * from './keys';
export * from './stats-fold';
export * from './stats-reader';
export * from './stats.module';
export * from './types';
export * from './visit-classifier';
export * from './visit-recorder';
