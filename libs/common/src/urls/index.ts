export * from './public-urls';
