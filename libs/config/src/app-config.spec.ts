import 'reflect-metadata';

import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('falls back to the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      REDIS_PREFIX: 'lm',
      RATE_LIMIT: 3000,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      STATS_FLUSH_MS: 500,
      STATS_FOLD_SECONDS: 5,
      QR_CONCURRENCY: 0,
      WORKER_NICE: 10,
      AUTH_CACHE_SECONDS: 10,
      DOMAIN_VERIFY: 'dns',
      SERVICE_IPS: [],
    });
  });

  it('reads numbers and lists from their strings', () => {
    const config = loadConfig({
      PORT: '8080',
      STATS_FLUSH_MS: '1000',
      SERVICE_IPS: '203.0.113.1, 203.0.113.2',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      STATS_FLUSH_MS: 1000,
      SERVICE_IPS: ['203.0.113.1', '203.0.113.2'],
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['STATS_FLUSH_MS', '5'],
    ['STATS_FLUSH_MS', '60000'],
    ['STATS_FOLD_SECONDS', '0'],
    ['REDIS_URL', 'http://redis'],
    ['DATABASE_URL', 'mysql://db'],
    ['REDIS_PREFIX', 'has space'],
    ['APP_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['WORKER_NICE', '20'],
    ['WORKER_NICE', '-5'],
    ['AUTH_CACHE_SECONDS', '-1'],
    ['AUTH_CACHE_SECONDS', '301'],
  ])('%s=%s stops the boot with an error naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('names every bad variable at once, and demands APP_SECRET in production', () => {
    let message = '';
    try {
      loadConfig({ NODE_ENV: 'production', PORT: '-1', STATS_FLUSH_MS: 'x' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('PORT');
    expect(message).toContain('STATS_FLUSH_MS');
    expect(message).toContain('APP_SECRET is required when NODE_ENV=production');
  });
});
