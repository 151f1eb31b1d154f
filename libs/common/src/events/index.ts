export * from './user-deleted.event';
export * from './short-code-takedown.event';
