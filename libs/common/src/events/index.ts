export * from './user-deleted.event';
