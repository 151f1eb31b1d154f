export * from './signature';
export * from './target';
export * from './webhook-deliveries';
export * from './webhook-outbox';
export * from './webhooks-lib.module';
