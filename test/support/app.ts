import { Server } from 'node:http';

import { INestApplicationContext } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { RedisService } from '@app/redis';

import { createApi } from '../../apps/api/src/bootstrap';
import { UsersService } from '../../apps/api/src/users/users.service';
import { createWorker } from '../../apps/worker/src/bootstrap';
import { ResponseValidator, validatingAgent } from './openapi';

export interface TestApp {
  app: NestExpressApplication;
  server: Server;
  db: DataSource;
  redis: RedisService;
  /**
   * supertest against the real server (public handler + Nest). Every response is checked against
   * the app's OpenAPI document (test/support/openapi.ts); a mismatch fails the suite at its end.
   */
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

/**
 * Boots the api exactly as production does (same AppModule, same HTTP front). `env` is applied
 * to process.env before the config is read (e.g. `{ RATE_LIMIT: '5' }`) and restored afterwards.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const { app, server } = await createApi({
      logger: process.env.TEST_LOG_LEVEL ? undefined : false,
    });
    const validator = await ResponseValidator.of(server);
    return {
      app,
      server,
      db: app.get(DataSource),
      redis: app.get(RedisService),
      http: () => validatingAgent(request(server), validator),
      close: async () => {
        server.close();
        await app.close();
      },
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * The app of a `describe` block: started before its first test (`beforeAll`, so hooks registered
 * after this call see it running), closed after its last. The handle can be used where the block
 * is declared (request helpers close over it); its fields read the running app. `env` as for
 * createTestApp.
 */
export function useTestApp(env: Record<string, string> = {}): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await createTestApp(env);
  });
  afterAll(() => current?.close());
  const running = (): TestApp => {
    if (!current) throw new Error('the test app is started in beforeAll: use it inside a test');
    return current;
  };
  return {
    get app() {
      return running().app;
    },
    get server() {
      return running().server;
    },
    get db() {
      return running().db;
    },
    get redis() {
      return running().redis;
    },
    http: () => running().http(),
    close: () => running().close(),
  };
}

/** Runs `use` with an app of its own (`env` as for createTestApp), closed afterwards in any case. */
export async function withTestApp<T>(
  env: Record<string, string>,
  use: (t: TestApp) => Promise<T>,
): Promise<T> {
  const t = await createTestApp(env);
  try {
    return await use(t);
  } finally {
    await t.close();
  }
}

/** `t.http()[method]`, bound (the agent's verbs read `this`). */
export function call(t: TestApp, method: 'get' | 'post' | 'put' | 'delete') {
  const agent = t.http();
  return agent[method].bind(agent);
}

/**
 * Boots the worker in-process (BullMQ processors running), for suites that need rendered jobs.
 * `env` works as for createTestApp (applied while the config is read, then restored).
 */
export async function createTestWorker(
  env: Record<string, string> = {},
): Promise<INestApplicationContext> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    const worker = await createWorker({ logger: process.env.TEST_LOG_LEVEL ? undefined : false });
    await worker.init();
    return worker;
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export interface TestUser {
  id: number;
  email: string;
  username: string;
  password: string;
  apiKey: string;
  /** `{ Authorization: 'Bearer <key>' }` */
  auth: { Authorization: string };
}

let seq = 0;

/** A fresh user with its own key: suites isolate by giving every test its own users. */
export async function createUser(
  t: TestApp,
  opts: {
    admin?: boolean;
    planId?: number;
    /** a plan the migrations seed, by name, instead of planId */
    plan?: 'Free' | 'Pro';
    expires?: Date | null;
    planType?: 'monthly' | 'yearly' | 'lifetime';
  } = {},
): Promise<TestUser> {
  seq += 1;
  const tag = `${process.pid}${Date.now().toString(36)}${seq}`;
  const email = `u${tag}@example.com`;
  const username = `u${tag}`;
  const password = 'password1';
  const { user, apiKey } = await t.app.get(UsersService).create({
    email,
    username,
    password,
    isAdmin: opts.admin,
    planId: opts.plan ? await seededPlanId(t, opts.plan) : opts.planId,
    expires: opts.expires,
    planType: opts.planType,
  });
  return {
    id: user.id,
    email,
    username,
    password,
    apiKey,
    auth: { Authorization: `Bearer ${apiKey}` },
  };
}

/** Inserts a plan with the given limits merged over the free plan's; returns its id. */
export async function createPlan(
  t: TestApp,
  limits: Record<string, unknown>,
  opts: { free?: boolean; name?: string } = {},
): Promise<number> {
  const [free] = await t.db.query(`SELECT limits FROM plans WHERE free ORDER BY id LIMIT 1`);
  const merged = { ...free.limits, ...limits };
  const [row] = await t.db.query(
    `INSERT INTO plans (name, free, price_monthly, price_yearly, price_lifetime, limits)
     VALUES ($1, $2, $3, $3, $3, $4) RETURNING id`,
    [
      opts.name ?? `Test ${Date.now()}`,
      opts.free ?? false,
      opts.free ? null : 1,
      JSON.stringify(merged),
    ],
  );
  return row.id;
}

type UserOptions = NonNullable<Parameters<typeof createUser>[1]>;

/**
 * A user of a `describe` block, created in `beforeAll` (in the order of the calls): the object is
 * empty until then. `opts` as for createUser.
 */
function useUser(t: TestApp, opts: UserOptions): TestUser {
  const user = {} as TestUser;
  beforeAll(async () => {
    Object.assign(user, await createUser(t, opts));
  });
  return user;
}

async function seededPlanId(t: TestApp, name: 'Free' | 'Pro'): Promise<number> {
  const [row] = await t.db.query(`SELECT id FROM plans WHERE name = $1`, [name]);
  return row.id;
}

/** The ids of the plans the migrations seed, read in `beforeAll` (0 until then). */
function useSeededPlans(t: TestApp): { free: number; pro: number } {
  const plans = { free: 0, pro: 0 };
  beforeAll(async () => {
    plans.free = await seededPlanId(t, 'Free');
    plans.pro = await seededPlanId(t, 'Pro');
  });
  return plans;
}

/**
 * The app of a `describe` block (useTestApp) and its users, named by `users` (their createUser
 * options) and created in that order in `beforeAll`: each user object is empty until then.
 */
export function useSuite<K extends string>(
  users: Record<K, UserOptions>,
  env: Record<string, string> = {},
): { t: TestApp } & Record<K, TestUser> {
  const t = useTestApp(env);
  const made = Object.entries<UserOptions>(users).map(([name, opts]) => [name, useUser(t, opts)]);
  return { t, ...Object.fromEntries(made) } as { t: TestApp } & Record<K, TestUser>;
}

/** What the admin-route suites start with: their app, an admin, a member, the seeded plans' ids. */
export function useAdminSuite() {
  const suite = useSuite({ admin: { admin: true }, member: {} });
  return { ...suite, plans: useSeededPlans(suite.t) };
}

/** The documented date-time format. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Asserts the failure envelope and returns the message. */
export function expectError(res: request.Response, status: number, messageMatch?: RegExp): string {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: 1 } });
  expect(typeof res.body.message).toBe('string');
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
  if (messageMatch) expect(res.body.message).toMatch(messageMatch);
  return res.body.message;
}

/**
 * What every public HTML page answers with: `status`, the HTML type, nosniff, and a CSP that denies
 * by default and forbids framing. Returns the CSP, for a suite's own checks of it.
 */
export function expectHtmlHeaders(res: request.Response, status: number): string {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  const csp = res.headers['content-security-policy'] as string;
  expect(csp).toMatch(/^default-src 'none'; /);
  expect(csp).toContain("frame-ancestors 'none'");
  return csp;
}
