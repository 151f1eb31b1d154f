export * from './data-source';
export * from './database.module';
export * from './entities';
export * from './transformers';
