import { plainToInstance, Transform } from 'class-transformer';
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

/**
 * Every setting the two apps read from the environment, with the defaults of CONTRACT.md.
 * Validated once at boot: a bad value stops the process with the variable's name.
 */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/linkmgmt';

  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Prefix of every Redis key and BullMQ queue, so several deployments (or test runs) can share one Redis. */
  @Matches(/^[A-Za-z0-9_-]{1,32}$/, { message: 'REDIS_PREFIX must be 1-32 of [A-Za-z0-9_-]' })
  REDIS_PREFIX = 'lm';

  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    {
      message: 'PUBLIC_URL must be an absolute http(s) URL',
    },
  )
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
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT = 3000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_WINDOW_SECONDS = 60;

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
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(10_000)
  STATS_FLUSH_MS = 500;

  /** Seconds between two folds of visit counters into Postgres (worker). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  STATS_FOLD_SECONDS = 5;

  /**
   * Scheduling niceness of the worker process (0 normal … 19 lowest). Rendering is background
   * work: on a host it shares with the api, the api's requests come first. No effect across
   * separate hosts or CPU-limited containers.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(19)
  WORKER_NICE = 10;

  /** Concurrent QR renders per worker process; 0 = one per CPU core. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  QR_CONCURRENCY = 0;

  /** Resolved short links kept in each api process (LRU); 0 turns the in-process cache off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  LINK_CACHE_SIZE = 50_000;

  /** Seconds a resolved short link stays in the in-process cache (Redis keeps it an hour). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  LINK_CACHE_SECONDS = 60;

  /**
   * Seconds an API key's owner stays cached in each api process (0 = no cache). Changes through
   * the API invalidate it on every replica at once; this bounds changes made in SQL by hand.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300)
  AUTH_CACHE_SECONDS = 10;

  get isProduction(): boolean {
    return this.NODE_ENV === 'production';
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

/** Builds and validates the config from an environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  const raw: Record<string, unknown> = {};
  for (const key of known) if (env[key] !== undefined) raw[key] = env[key];
  const config = plainToInstance(AppConfig, raw, { exposeDefaultValues: true });
  const errors = validateSync(config, { skipMissingProperties: false });
  const problems = errors.flatMap((e) => Object.values(e.constraints ?? {}));
  if (config.isProduction && !config.APP_SECRET) {
    problems.push('APP_SECRET is required when NODE_ENV=production');
  }
  if (config.ADMIN_EMAIL && !config.ADMIN_PASSWORD && !config.ADMIN_API_KEY) {
    problems.push('ADMIN_EMAIL needs ADMIN_PASSWORD (or ADMIN_API_KEY)');
  }
  if (problems.length) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return config;
}
