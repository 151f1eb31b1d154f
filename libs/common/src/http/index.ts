export * from './envelope';
export * from './envelope.interceptor';
export * from './errors';
export * from './exception.filter';
export * from './id-param';
export * from './validation';
export * from './json-body.middleware';
export * from './openapi';
