export * from './signature';
export * from './target';
export * from './webhook-outbox';
