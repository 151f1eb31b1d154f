/**
 * What the link rules need of the short-link cache, wherever they run: the api binds it to its
 * LinkCache (in-process LRU and Redis), the worker to Postgres and the cache's invalidation.
 */
export abstract class LinkCacheAccess {
  /** Whether `host` is a branded domain (of any user). */
  abstract isBrandedHost(host: string): Promise<boolean>;

  /** Drops cached answers of these aliases on every api replica (a cached "no such alias" too). */
  abstract forgetAliases(aliases: string[]): Promise<void>;
}
