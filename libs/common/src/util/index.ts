export * from './crypto';
export * from './dates';
