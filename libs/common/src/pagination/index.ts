export * from './page-query.dto';
export * from './paginate';
