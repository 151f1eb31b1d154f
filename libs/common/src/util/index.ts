export * from './crypto';
export * from './dates';
export * from './passwords';
export * from './host';
export * from './web-url';
export * from './memo-map';
