export * from './queue.module';
export * from './queues';
