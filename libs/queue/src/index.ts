export * from './queue.module';
export * from './queues';
export * from './logged-worker-host';
export * from './queue-connection';
