export * from './list-budget';
export * from './page-query.dto';
export * from './paginate';
