import { plainToInstance, Transform } from 'class-transformer';
import { isIP } from 'node:net';

import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
} from 'class-validator';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;

const TRUST_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `true`, `false`, a hop count, or a comma-separated list of loopback / linklocal / uniquelocal, addresses and CIDR ranges. */
export function isTrustProxySetting(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const v = value.trim();
  if (v === 'true' || v === 'false' || /^\d{1,3}$/.test(v)) return true;
  const items = v.split(',').map((s) => s.trim());
  return (
    items.length > 0 &&
    items.every((item) => {
      if (TRUST_NAMES.has(item)) return true;
      const [addr, bits, extra] = item.split('/');
      const family = isIP(addr);
      if (!family || extra !== undefined) return false;
      return (
        bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
      );
    })
  );
}

/** `*` or a web origin: `http(s)://host[:port]`, nothing after it. */
export function isCorsOrigin(value: unknown): boolean {
  if (value === '*') return true;
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** A WEBHOOK_ALLOW_HOSTS entry read: its host as targetHost spells it, and its port if it names one. */
export interface AllowEntry {
  host: string;
  port: number | null;
}

/**
 * Reads a WEBHOOK_ALLOW_HOSTS entry: `host`, `host:port`, an IPv4 address with or without a port,
 * an IPv6 address bare or in brackets, `[v6]:port`. Null when it is none of these.
 */
export function parseAllowEntry(entry: string): AllowEntry | null {
  const value = entry.trim().toLowerCase();
  let host = value;
  let port: string | null = null;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) [, host, port = null] = bracketed;
  else if (value.indexOf(':') === value.lastIndexOf(':') && value.includes(':'))
    [host, port] = value.split(':');
  if (port !== null && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    return null;
  host = host.replace(/\.$/, '');
  const ok = host.includes(':') ? isIP(host) === 6 : /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(host);
  return ok ? { host, port: port === null ? null : Number(port) } : null;
}

/** `host:port` items (a host name, IPv4, or [IPv6]) and ports 1-65535. */
function isHostPortList(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.every((item) => {
      const m =
        typeof item === 'string' && /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(item);
      return !!m && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
    })
  );
}

/** A custom check: `validate`, failing with `message`. */
const Check = (name: string, message: string, validate: (value: unknown) => boolean) =>
  ValidateBy({ name, validator: { validate } }, { message });

const IsCorsOrigins = () =>
  Check(
    'isCorsOrigins',
    'CORS_ORIGINS must be a comma-separated list of origins (http(s)://host[:port], lower case, no path) or *',
    (value) => Array.isArray(value) && value.every(isCorsOrigin),
  );

const IsAllowHosts = () =>
  Check(
    'isAllowHosts',
    'WEBHOOK_ALLOW_HOSTS must be a comma-separated list of host names or IP addresses, each with an optional :port (IPv6 with a port in brackets: [::1]:8080)',
    (value) => Array.isArray(value) && value.every((v) => parseAllowEntry(String(v)) !== null),
  );

const IsTrustProxy = () =>
  Check(
    'isTrustProxy',
    'TRUST_PROXY must be true, false, a hop count, or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges',
    isTrustProxySetting,
  );

/**
 * An integer variable, read from its string, from `min` (to `max`). (Applied as the stack
 * `@Transform(toInt) @IsInt() @Min(min) @Max(max)` was, so the messages keep their order.)
 */
function IntSetting(min: number, max?: number): PropertyDecorator {
  return (target, key) => {
    if (max !== undefined) Max(max)(target, key);
    Min(min)(target, key);
    IsInt()(target, key);
    Transform(toInt)(target, key);
  };
}

/**
 * Every setting the two apps read from the environment, with its default (docs/configuration.md).
 * Validated once at boot: a bad value stops the process with the variable's name.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IntSetting(0, 65535)
  PORT = 3000;

  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/linkmgmt';

  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Redis Cluster seed nodes `host:port,…` (self-hosted or a cluster-mode managed Redis / Valkey):
   * set, it replaces REDIS_URL; the client follows MOVED/ASK and topology changes (docs/scaling.md).
   */
  @Transform(toList)
  @Check('isHostPorts', 'REDIS_CLUSTER_NODES must be host:port,…', isHostPortList)
  REDIS_CLUSTER_NODES: string[] = [];

  /** Sentinels `host:port,…` watching REDIS_SENTINEL_NAME: set, they replace REDIS_URL. */
  @Transform(toList)
  @Check('isHostPorts', 'REDIS_SENTINELS must be host:port,…', isHostPortList)
  REDIS_SENTINELS: string[] = [];

  /** The master name the sentinels watch (REDIS_SENTINELS). */
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, {
    message: 'REDIS_SENTINEL_NAME must be 1-64 of [A-Za-z0-9._-]',
  })
  REDIS_SENTINEL_NAME = 'mymaster';

  /** Password of every Redis mode (REDIS_URL's own password wins for that mode). */
  @IsOptional()
  @IsString()
  REDIS_PASSWORD?: string;

  /** TLS to Redis in every mode (`rediss://` does the same for REDIS_URL). */
  @Transform(({ value }) => value === true || value === 'true' || value === '1')
  REDIS_TLS = false;

  /** Prefix of every Redis key and BullMQ queue, so several deployments (or test runs) can share one Redis. */
  @Matches(/^[A-Za-z0-9_-]{1,32}$/, { message: 'REDIS_PREFIX must be 1-32 of [A-Za-z0-9_-]' })
  REDIS_PREFIX = 'lm';

  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message: 'PUBLIC_URL must be an absolute http(s) URL',
    },
  )
  /** Unset: `http://localhost:$PORT` (set by loadConfig once PORT is read; 3000 when PORT is 0). */
  PUBLIC_URL = 'http://localhost:3000';

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'APP_SECRET must be at least 16 characters' })
  APP_SECRET?: string;

  @IsOptional()
  @IsString()
  ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  ADMIN_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'ADMIN_API_KEY must be at least 32 characters' })
  ADMIN_API_KEY?: string;

  @IsIn(['dns', 'off'])
  DOMAIN_VERIFY: 'dns' | 'off' = 'dns';

  /** Addresses a branded domain may resolve to (DOMAIN_VERIFY=dns). */
  @Transform(toList)
  @IsString({ each: true })
  SERVICE_IPS: string[] = [];

  /** Host name a branded domain may be a CNAME of (DOMAIN_VERIFY=dns). */
  @IsOptional()
  @IsString()
  SERVICE_HOST?: string;

  @IsString()
  STORAGE_DIR = './storage';

  /** Requests per window per API key (per IP without a valid key). */
  @IntSetting(1)
  RATE_LIMIT = 3000;

  @IntSetting(1)
  RATE_LIMIT_WINDOW_SECONDS = 60;

  /**
   * Web origins whose pages may call /api from a browser (CORS), comma-separated; `*` for any.
   * Empty (the default): no CORS headers.
   */
  @Transform(toList)
  @IsCorsOrigins()
  CORS_ORIGINS: string[] = [];

  /** Allow QR logo URLs on private / loopback addresses (tests only). */
  @Transform(({ value }) => value === true || value === 'true' || value === '1')
  ALLOW_PRIVATE_FETCH = false;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /**
   * Milliseconds the api aggregates visits of uncapped owners in memory before writing them to
   * Redis: longer merges more visits per link (less work) and loses more if the process is
   * killed without SIGTERM (SIGTERM writes them).
   */
  @IntSetting(10, 10_000)
  STATS_FLUSH_MS = 500;

  /**
   * Live visit streams (`GET /api/url/:id/live`, `GET /api/stats/live`) one API key or session
   * may hold open at once, over every api replica (past it: 429).
   */
  @IntSetting(1, 100)
  LIVE_STREAMS_PER_KEY = 5;

  /** Milliseconds between two heartbeats (SSE comment lines) of a live stream with no visit. */
  @IntSetting(100, 300_000)
  LIVE_HEARTBEAT_MS = 15_000;

  /**
   * Milliseconds an api process gathers the visits of a listened owner before publishing them to
   * the live streams (one PUBLISH per owner and batch): a visit reaches its streams within this.
   */
  @IntSetting(10, 1000)
  LIVE_BATCH_MS = 250;

  /** Seconds between two folds of visit counters into Postgres (worker). */
  @IntSetting(1)
  STATS_FOLD_SECONDS = 5;

  /**
   * Labels kept per link, day and dimension for the dimensions whose labels visitors choose
   * (referrers and their URLs, UTM values, browsers, systems, device models, cities, regions):
   * the fold counts the visits of further labels under `(other)`.
   */
  @IntSetting(10, 10_000)
  STATS_LABELS_PER_DAY = 100;

  /**
   * An MMDB city database (MaxMind's GeoLite2/GeoIP2 City layout or ip-location-db's) to read
   * cities and regions from, instead of the DB-IP Lite City data installed with the project.
   */
  @IsOptional()
  @IsString()
  GEOIP_CITY_DB?: string;

  /**
   * Partitions of the statistics keys in Redis (a link's partition is its id modulo this): each
   * partition's keys share one hash tag, so on a Redis Cluster they spread over as many slots.
   * Every api and worker must use the same value; changing it strands the counters pending in
   * the old partitions until it is changed back (docs/scaling.md).
   */
  @IntSetting(1, 1024)
  STATS_PARTITIONS = 16;

  /**
   * Scheduling niceness of the worker process (0 normal … 19 lowest). Rendering is background
   * work: on a host it shares with the api, the api's requests come first. No effect across
   * separate hosts or CPU-limited containers.
   */
  @IntSetting(0, 19)
  WORKER_NICE = 10;

  /** Concurrent QR renders per worker process; 0 = one per CPU core. */
  @IntSetting(0)
  QR_CONCURRENCY = 0;

  /** Resolved short links kept in each api process (LRU); 0 turns the in-process cache off. */
  @IntSetting(0)
  LINK_CACHE_SIZE = 50_000;

  /** Seconds a resolved short link stays in the in-process cache (Redis keeps it an hour). */
  @IntSetting(1)
  LINK_CACHE_SECONDS = 60;

  /**
   * Seconds an API key's owner stays cached in each api process (0 = no cache). Changes through
   * the API invalidate it on every replica at once; this bounds changes made in SQL by hand.
   */
  @IntSetting(0, 300)
  AUTH_CACHE_SECONDS = 10;

  /**
   * Days a dashboard session (`POST /auth/session`) lasts in Redis since its last use (renewed at
   * most once an hour); a password change or the user's deletion ends it at once.
   */
  @IntSetting(1, 365)
  SESSION_DAYS = 14;

  /**
   * Proxies whose X-Forwarded-For is believed for the client address (rate limit, statistics,
   * password attempts), read like Express's `trust proxy`.
   */
  @IsTrustProxy()
  TRUST_PROXY = 'false';

  /** Postgres connections per process. */
  @IntSetting(1, 1000)
  DB_POOL_SIZE = 10;

  /**
   * Streaming read replicas of DATABASE_URL (comma-separated postgres:// URLs). Statistics reads,
   * exports and lists read from one of them; everything else stays on the primary.
   */
  @Transform(toList)
  @IsString({ each: true })
  @Check(
    'isPostgresUrls',
    'DATABASE_REPLICA_URLS must be a comma-separated list of postgres:// URLs',
    (value) => Array.isArray(value) && value.every((v) => /^postgres(ql)?:\/\/.+/.test(String(v))),
  )
  DATABASE_REPLICA_URLS: string[] = [];

  /**
   * A replica lagging more than this behind the primary is skipped until it catches up; a caller
   * who wrote within about this long reads from the primary.
   */
  @IntSetting(1, 3600)
  REPLICA_MAX_LAG_SECONDS = 5;

  /**
   * Postgres connections of CSV exports per api process, apart from DB_POOL_SIZE: at most this
   * many exports run at once in a process (past it: 429 with Retry-After).
   */
  @IntSetting(1, 100)
  EXPORT_CONNECTIONS = 3;

  /** Exports one user may run at once, over every api replica (past it: 429 with Retry-After). */
  @IntSetting(1, 100)
  EXPORTS_PER_USER = 2;

  /** Seconds an export's query may run (Postgres `statement_timeout` of export connections). */
  @IntSetting(1, 86_400)
  EXPORT_STATEMENT_SECONDS = 300;

  /** Seconds an export may go without sending a byte once its first rows are out (a client that stopped reading) before it is cut off. */
  @IntSetting(1, 3600)
  EXPORT_STALL_SECONDS = 30;

  /**
   * List and search queries (`GET /api/urls`) one api process runs at once, on connections of
   * DB_POOL_SIZE: the rest of the pool stays for redirects and every other request (at most
   * DB_POOL_SIZE - 1 are used, however large this is). A list that finds every slot taken waits
   * up to LIST_QUERY_MS for one, then gets 429 with Retry-After.
   */
  @IntSetting(1, 1000)
  LIST_QUERIES = 4;

  /** List and search queries one user may run at once in a process (past it: 429 with Retry-After). */
  @IntSetting(1, 1000)
  LIST_QUERIES_PER_USER = 2;

  /**
   * Milliseconds a list or search query may run (`SET LOCAL statement_timeout`); past it the
   * request ends in 503 saying the search took too long.
   */
  @IntSetting(100, 600_000)
  LIST_QUERY_MS = 2000;

  /**
   * Seconds a connection with a request under way may go without a byte moving either way (a
   * client that stopped reading a response, a handler that hangs) before it is closed.
   */
  @IntSetting(1, 3600)
  RESPONSE_TIMEOUT_SECONDS = 60;

  /** Open connections the api accepts at once (slow or idle clients cannot exhaust the process). */
  @IntSetting(10, 1_000_000)
  MAX_CONNECTIONS = 10_000;

  /** Seconds a client may take to send a request's headers, and the whole request. */
  @IntSetting(1, 600)
  HEADERS_TIMEOUT_SECONDS = 15;

  @IntSetting(1, 3600)
  REQUEST_TIMEOUT_SECONDS = 30;

  /**
   * Unknown aliases a client may ask for per minute on the public side (every replica together)
   * before it gets the 429 page for every alias: guessing short links is slow (0 = no limit).
   */
  @IntSetting(0)
  MISS_BUDGET = 100;

  /** A file of blocked destinations: one domain (blocks its subdomains) or `keyword:<word>` a line. */
  @IsOptional()
  @IsString()
  BLOCKLIST_FILE?: string;

  /**
   * Webhook receivers an operator trusts on an internal network: host names or addresses
   * (comma-separated) exempt from the public-address rule, reachable over plain http too; an
   * entry with a port (`host:port`, `[v6]:port`) exempts that port only.
   */
  @Transform(toList)
  @IsString({ each: true })
  @IsAllowHosts()
  WEBHOOK_ALLOW_HOSTS: string[] = [];

  /**
   * Threat feeds (comma-separated files or http(s) URLs, each optionally `name=` first) in the
   * URLhaus (CSV or plain text), PhishTank (CSV or JSON) or OpenPhish (plain list) formats,
   * loaded by the worker; a destination they flag is refused on create and update.
   */
  @Transform(toList)
  @IsString({ each: true })
  THREAT_FEEDS: string[] = [];

  /**
   * Destination health (docs/link-health.md): seconds between two probes of one link's target
   * (links visited in the last 30 days; each link's time is spread with a random share of it).
   */
  @IntSetting(1, 30 * 86400)
  HEALTH_CHECK_SECONDS = 86400;

  /** At most one probe per target host per this many seconds (every worker together). */
  @IntSetting(1, 86400)
  HEALTH_HOST_SECONDS = 60;

  /** Failed probes in a row after which a link is broken (and serves its `fallbackurl`). */
  @IntSetting(1, 100)
  HEALTH_FAIL_THRESHOLD = 3;

  /** A probe's whole time (every redirect hop, DNS included), in milliseconds. */
  @IntSetting(500, 30_000)
  HEALTH_TIMEOUT_MS = 5000;

  /** Probes one worker runs at once. */
  @IntSetting(1, 100)
  HEALTH_CONCURRENCY = 8;

  /** Minutes between two loads of each threat feed (the worker also loads them at start). */
  @IntSetting(1, 10080)
  THREAT_FEED_MINUTES = 30;

  /**
   * Seconds between two link snapshots (the signed file in STORAGE_DIR from which the api answers
   * short links while Postgres and Redis are both unreachable); 0 turns the snapshot off (none
   * written, none read).
   */
  @IntSetting(0, 86400)
  SNAPSHOT_SECONDS = 60;

  /**
   * The online lookup's endpoint, speaking the Safe Browsing v4 `threatMatches:find` protocol.
   * Unset: Google's (https://safebrowsing.googleapis.com/v4/threatMatches:find) when
   * SAFE_BROWSING_KEY is set, else no lookup.
   */
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'SAFE_BROWSING_URL must be an absolute http(s) URL' },
  )
  SAFE_BROWSING_URL?: string;

  /** The lookup's API key (sent as `?key=`). */
  @IsOptional()
  @IsString()
  @Matches(/^[\x21-\x7e]{1,200}$/, {
    message: 'SAFE_BROWSING_KEY must be 1-200 printable characters without spaces',
  })
  SAFE_BROWSING_KEY?: string;

  /** How long one lookup call may take (ms); past it the lookup counts as down. */
  @IntSetting(100, 60000)
  SAFE_BROWSING_TIMEOUT_MS = 3000;

  /** How long a clean answer is cached (seconds); a match is cached for its `cacheDuration`. */
  @IntSetting(0, 86400)
  SAFE_BROWSING_CLEAN_SECONDS = 1800;

  /** Minutes between two lookups of every active link's targets by the worker. */
  @IntSetting(1, 43200)
  SAFE_BROWSING_RESCAN_MINUTES = 1440;

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
  }

  /** The online lookup's endpoint (without the key), or null when there is none. */
  get safeBrowsingUrl(): string | null {
    if (this.SAFE_BROWSING_URL) return this.SAFE_BROWSING_URL;
    return this.SAFE_BROWSING_KEY
      ? 'https://safebrowsing.googleapis.com/v4/threatMatches:find'
      : null;
  }

  /** PUBLIC_URL without a trailing slash. */
  get publicUrl(): string {
    return this.PUBLIC_URL.replace(/\/+$/, '');
  }

  /** The secret used for encryption and salting; a fixed development value outside production. */
  get secret(): string {
    return this.APP_SECRET ?? 'development-secret-not-for-production';
  }
}

export class ConfigError extends Error {}

/** Secrets shipped in this project's examples or earlier defaults: never accepted in production. */
const KNOWN_SECRETS = new Set([
  'development-secret-not-for-production',
  'change-me-in-production-please',
  'change-me-to-a-long-random-string',
  'test-secret-test-secret-test-secret',
]);

/** Builds and validates the config from an environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  const raw: Record<string, unknown> = {};
  // an empty value means unset (compose passes `${X:-}` as ''), so the default applies
  for (const key of known) if (env[key] !== undefined && env[key] !== '') raw[key] = env[key];
  const config = plainToInstance(AppConfig, raw, { exposeDefaultValues: true });
  // unset, the public URL is this machine on the port the api listens on (PORT 0 picks a port only at listen)
  if (raw.PUBLIC_URL === undefined && Number.isInteger(config.PORT) && config.PORT > 0)
    config.PUBLIC_URL = `http://localhost:${config.PORT}`;
  const errors = validateSync(config, { skipMissingProperties: false });
  const problems = errors.flatMap((e) => Object.values(e.constraints ?? {}));
  if (config.isProduction) {
    if (!config.APP_SECRET) problems.push('APP_SECRET is required when NODE_ENV=production');
    else if (config.APP_SECRET.length < 32)
      problems.push('APP_SECRET must be at least 32 characters when NODE_ENV=production');
    else if (KNOWN_SECRETS.has(config.APP_SECRET) || /change.?me/i.test(config.APP_SECRET))
      problems.push('APP_SECRET is a published example value: set a random secret of your own');
  }
  if (problems.length) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return config;
}
