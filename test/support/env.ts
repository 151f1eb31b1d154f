import 'reflect-metadata';

/**
 * Settings every e2e suite runs with. The database and Redis prefix are unique to this run
 * (set by global-setup), so concurrent runs on one machine do not meet.
 */
process.env.NODE_ENV = 'test';
process.env.DOMAIN_VERIFY = 'off';
process.env.APP_SECRET = process.env.APP_SECRET ?? 'test-secret-test-secret-test-secret';
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
process.env.PUBLIC_URL = 'http://short.test';
process.env.STATS_FOLD_SECONDS = process.env.STATS_FOLD_SECONDS ?? '1';
// the suites stand behind a proxy on loopback: they send X-Forwarded-For to play visitors
process.env.TRUST_PROXY = 'loopback';
// suites ask for many unknown aliases from one address; the budget has suites of its own
process.env.MISS_BUDGET = process.env.MISS_BUDGET ?? '1000000';
// no link snapshot unless a suite asks for one (the permanence suite): workers started by other
// suites would otherwise write every link of the run's database into STORAGE_DIR
process.env.SNAPSHOT_SECONDS = process.env.SNAPSHOT_SECONDS ?? '0';
