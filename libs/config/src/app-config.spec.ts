import 'reflect-metadata';

import { ConfigError, loadConfig, parseAllowEntry } from './app-config';

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
      STATS_PARTITIONS: 16,
      QR_CONCURRENCY: 0,
      WORKER_NICE: 10,
      AUTH_CACHE_SECONDS: 10,
      SESSION_DAYS: 14,
      DOMAIN_VERIFY: 'dns',
      SERVICE_IPS: [],
      HEALTH_CHECK_SECONDS: 86400,
      HEALTH_HOST_SECONDS: 60,
      HEALTH_FAIL_THRESHOLD: 3,
      HEALTH_TIMEOUT_MS: 5000,
      HEALTH_CONCURRENCY: 8,
    });
  });

  it('points PUBLIC_URL at localhost on PORT when only PORT is set', () => {
    expect(loadConfig({}).PUBLIC_URL).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '8080', PUBLIC_URL: '' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '8080', PUBLIC_URL: 'https://s.example/' }).publicUrl).toBe(
      'https://s.example',
    );
    expect(loadConfig({ PORT: '0' }).publicUrl).toBe('http://localhost:3000');
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
    ['STATS_PARTITIONS', '0'],
    ['STATS_PARTITIONS', '2000'],
    ['REDIS_URL', 'http://redis'],
    ['DATABASE_URL', 'mysql://db'],
    ['REDIS_PREFIX', 'has space'],
    ['REDIS_CLUSTER_NODES', 'redis://a:6379'],
    ['REDIS_CLUSTER_NODES', 'a:6379,b'],
    ['REDIS_CLUSTER_NODES', 'a:70000'],
    ['REDIS_SENTINELS', 'a'],
    ['REDIS_SENTINEL_NAME', 'bad name'],
    ['APP_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['WORKER_NICE', '20'],
    ['WORKER_NICE', '-5'],
    ['AUTH_CACHE_SECONDS', '-1'],
    ['AUTH_CACHE_SECONDS', '301'],
    ['SESSION_DAYS', '0'],
    ['SESSION_DAYS', '366'],
    ['DATABASE_REPLICA_URLS', 'replica.internal:5432'],
    ['DATABASE_REPLICA_URLS', 'postgres://r1/db,mysql://r2/db'],
    ['REPLICA_MAX_LAG_SECONDS', '0'],
    ['REPLICA_MAX_LAG_SECONDS', 'soon'],
    ['HEALTH_CHECK_SECONDS', '0'],
    ['HEALTH_HOST_SECONDS', '0'],
    ['HEALTH_FAIL_THRESHOLD', '0'],
    ['HEALTH_FAIL_THRESHOLD', 'three'],
    ['HEALTH_TIMEOUT_MS', '100'],
    ['HEALTH_TIMEOUT_MS', '60000'],
    ['HEALTH_CONCURRENCY', '0'],
  ])('%s=%s stops the boot with an error naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('reads the read replicas as a list of URLs, with their allowed lag', () => {
    expect(loadConfig({})).toMatchObject({ DATABASE_REPLICA_URLS: [], REPLICA_MAX_LAG_SECONDS: 5 });
    expect(
      loadConfig({
        DATABASE_REPLICA_URLS: 'postgres://r1:5432/db, postgresql://r2/db',
        REPLICA_MAX_LAG_SECONDS: '2',
      }),
    ).toMatchObject({
      DATABASE_REPLICA_URLS: ['postgres://r1:5432/db', 'postgresql://r2/db'],
      REPLICA_MAX_LAG_SECONDS: 2,
    });
  });

  it('reads the Redis modes: cluster seed nodes and sentinels as host:port lists', () => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2.internal:7001,[::1]:7002',
      REDIS_SENTINELS: 's1:26379',
      REDIS_TLS: 'true',
    });
    expect(config.REDIS_CLUSTER_NODES).toEqual([
      '10.0.0.1:7000',
      'redis-2.internal:7001',
      '[::1]:7002',
    ]);
    expect(config.REDIS_SENTINELS).toEqual(['s1:26379']);
    expect(config.REDIS_SENTINEL_NAME).toBe('mymaster');
    expect(config.REDIS_TLS).toBe(true);
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

  it.each([
    ['a short one', 'x'.repeat(20), 'at least 32 characters'],
    ['the old compose default', 'change-me-in-production-please', 'at least 32'],
    ['the .env.example value', 'change-me-to-a-long-random-string', 'published example'],
    ['a change-me variant', 'please-change-me-please-change-me-now', 'published example'],
    ['the development fallback', 'development-secret-not-for-production', 'published example'],
  ])('production refuses %s as APP_SECRET', (_what, secret, message) => {
    expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: secret })).toThrow(message);
  });

  it('production takes a long random secret', () => {
    expect(
      loadConfig({ NODE_ENV: 'production', APP_SECRET: 'k3Xq9Lm2Rt7Vw1Zy8Bn4Cd6Fg0Hj5Ps2' })
        .isProduction,
    ).toBe(true);
  });

  it('an empty value is unset: ADMIN_API_KEY= from compose does not stop the boot', () => {
    const config = loadConfig({ ADMIN_EMAIL: 'a@example.com', ADMIN_API_KEY: '', PORT: '' });
    expect(config.ADMIN_API_KEY).toBeUndefined();
    expect(config.PORT).toBe(3000);
  });

  it('trusts no proxy unless TRUST_PROXY names one, and refuses a malformed one', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe('false');
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toBe(
      '10.0.0.0/8, loopback',
    );
    expect(() => loadConfig({ TRUST_PROXY: 'my-proxy.internal' })).toThrow('TRUST_PROXY');
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow('TRUST_PROXY');
  });

  it('reads CORS_ORIGINS as a list of origins or *, and refuses anything else', () => {
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:8080' }).CORS_ORIGINS,
    ).toEqual(['https://app.example.com', 'http://localhost:8080']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).CORS_ORIGINS).toEqual(['*']);
    for (const bad of [
      'app.example.com',
      'https://app.example.com/',
      'ftp://x.example',
      'https://A.example',
    ])
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow('CORS_ORIGINS');
  });

  it('reads WEBHOOK_ALLOW_HOSTS entries with an optional port, and refuses anything else', () => {
    expect(
      loadConfig({
        WEBHOOK_ALLOW_HOSTS: 'hooks.internal, 10.0.0.5:8080, [::1]:9000, fd00::7, my_svc',
      }).WEBHOOK_ALLOW_HOSTS,
    ).toEqual(['hooks.internal', '10.0.0.5:8080', '[::1]:9000', 'fd00::7', 'my_svc']);
    expect(parseAllowEntry('Hooks.Internal.:8443')).toEqual({ host: 'hooks.internal', port: 8443 });
    expect(parseAllowEntry('10.0.0.5')).toEqual({ host: '10.0.0.5', port: null });
    expect(parseAllowEntry('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(parseAllowEntry('fd00::7')).toEqual({ host: 'fd00::7', port: null });
    for (const bad of [
      'hooks.internal:0',
      'hooks.internal:99999',
      'a:b:c',
      'http://x',
      'x:',
      '[::1',
      'a b',
    ])
      expect(() => loadConfig({ WEBHOOK_ALLOW_HOSTS: bad })).toThrow('WEBHOOK_ALLOW_HOSTS');
  });

  it("reads the online lookup: Google's endpoint for a key alone, another URL, bounds", () => {
    expect(loadConfig({}).safeBrowsingUrl).toBeNull();
    expect(loadConfig({ SAFE_BROWSING_KEY: 'AIzaKey-1' }).safeBrowsingUrl).toBe(
      'https://safebrowsing.googleapis.com/v4/threatMatches:find',
    );
    const stub = 'http://127.0.0.1:9000/v4/threatMatches:find';
    expect(loadConfig({ SAFE_BROWSING_URL: stub }).safeBrowsingUrl).toBe(stub);
    expect(loadConfig({ SAFE_BROWSING_TIMEOUT_MS: '500' }).SAFE_BROWSING_TIMEOUT_MS).toBe(500);
    expect(() => loadConfig({ SAFE_BROWSING_URL: 'ftp://x.example/' })).toThrow(
      'SAFE_BROWSING_URL',
    );
    expect(() => loadConfig({ SAFE_BROWSING_KEY: 'a key' })).toThrow('SAFE_BROWSING_KEY');
    expect(() => loadConfig({ SAFE_BROWSING_TIMEOUT_MS: '50' })).toThrow(
      'SAFE_BROWSING_TIMEOUT_MS',
    );
    expect(() => loadConfig({ SAFE_BROWSING_RESCAN_MINUTES: '0' })).toThrow(
      'SAFE_BROWSING_RESCAN_MINUTES',
    );
  });
});
