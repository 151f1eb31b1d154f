export * from './public-urls';
export * from './nest-paths';
