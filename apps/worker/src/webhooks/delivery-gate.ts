import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { DelayedError, Job, Queue } from 'bullmq';

import { DeliverWebhookPayload, QUEUE } from '@app/queue';
import { RedisService } from '@app/redis';

/** Deliveries of one webhook in flight at once, on every worker together. */
export const WEBHOOK_IN_FLIGHT = 2;
/** Deliveries of one user's webhooks in flight at once (a user has up to 20 webhooks). */
export const USER_IN_FLIGHT = 8;
/** Consecutive deliveries without an answer (timeout, no connection) that open the breaker. */
export const BREAKER_THRESHOLD = 5;
/** How long an opened breaker holds deliveries, doubled after each failed probe up to the max. */
export const BREAKER_BASE_MS = 30_000;
export const BREAKER_MAX_MS = 10 * 60_000;
/**
 * A slot is held at most this long (longer than any attempt: 2 s to connect, 5 s to answer):
 * a worker killed mid-delivery gives its slots back by then.
 */
const LEASE_MS = 30_000;
/** A job that found the slots taken is woken when one frees, at the latest after this. */
const WAIT_MS = 2_000;
/** While the breaker's probe is out, held deliveries look again after this. */
const PROBE_WAIT_MS = 5_000;

/**
 * Lets a delivery through, or says how long to hold it. KEYS: the webhook's in-flight set, the
 * user's in-flight set, the webhook's waiting set, the webhook's breaker hash, the user's waiting
 * set (deliveries held by the user's limit rather than the webhook's). ARGV: member (job
 * id), webhook max, user max, lease ms, how long to hold a delivery while the probe is out (ms;
 * the probe's answer decides what follows). Returns {0, probe} to go (probe = 1 when the delivery is
 * the half-open breaker's single probe), {1, ms} while the breaker holds deliveries, {2, 0} when
 * the slots are taken (the job is listed as waiting).
 *
 * The breaker hash: `fails` (consecutive deliveries without an answer), `until` (open until, ms),
 * `backoff` (the last open period), `probe` (when the probe left, while one is out).
 */
const ENTER = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, hookMax, userMax = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local lease, probing = tonumber(ARGV[4]), tonumber(ARGV[5])
local probe = 0
local untilAt = tonumber(redis.call('HGET', KEYS[4], 'until') or '0')
if untilAt > now then return {1, untilAt - now} end
if untilAt > 0 then
  local out = tonumber(redis.call('HGET', KEYS[4], 'probe') or '0')
  if out + lease > now then return {1, math.min(out + lease - now, probing)} end
  probe = 1
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], member) then
  local queue = nil
  if redis.call('ZCARD', KEYS[1]) >= hookMax then queue = KEYS[3]
  elseif redis.call('ZCARD', KEYS[2]) >= userMax then queue = KEYS[5] end
  if queue then
    redis.call('ZREMRANGEBYSCORE', queue, '-inf', now - 10 * lease)
    redis.call('ZADD', queue, 'NX', now, member)
    redis.call('PEXPIRE', queue, 10 * lease)
    return {2, 0}
  end
end
redis.call('ZADD', KEYS[1], now + lease, member)
redis.call('ZADD', KEYS[2], now + lease, member)
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('PEXPIRE', KEYS[2], lease)
redis.call('ZREM', KEYS[3], member)
redis.call('ZREM', KEYS[5], member)
if probe == 1 then
  redis.call('HSET', KEYS[4], 'probe', now)
end
return {0, probe}`;

/**
 * Gives the slots back, records the outcome in the breaker, and answers the id of the job to
 * wake (or false): the webhook's longest waiting delivery, else the user's. KEYS as ENTER. ARGV:
 * member, outcome (`answered`: the receiver answered, any status; `silent`: no answer or no
 * connection; `none`: not sent), probe (1/0), threshold, base ms, max ms.
 */
const LEAVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, outcome, probe = ARGV[1], ARGV[2], ARGV[3]
local threshold, base, max = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
redis.call('ZREM', KEYS[1], member)
redis.call('ZREM', KEYS[2], member)
if outcome == 'answered' then
  redis.call('DEL', KEYS[4])
elseif outcome == 'silent' then
  local fails = redis.call('HINCRBY', KEYS[4], 'fails', 1)
  local untilAt = tonumber(redis.call('HGET', KEYS[4], 'until') or '0')
  if probe == '1' or (untilAt == 0 and fails >= threshold) then
    local last = tonumber(redis.call('HGET', KEYS[4], 'backoff') or '0')
    local backoff = base
    if last > 0 then backoff = math.min(last * 2, max) end
    redis.call('HSET', KEYS[4], 'until', now + backoff, 'backoff', backoff, 'fails', 0, 'probe', 0)
  end
  redis.call('PEXPIRE', KEYS[4], 2 * max)
elseif probe == '1' then
  redis.call('HSET', KEYS[4], 'probe', 0)
end
for _, queue in ipairs({KEYS[3], KEYS[5]}) do
  local next = redis.call('ZRANGE', queue, 0, 0)
  if next[1] then
    redis.call('ZREM', queue, next[1])
    return next[1]
  end
end
return false`;

type GateRedis = {
  webhookEnter(...args: Array<string | number>): Promise<[number, number]>;
  webhookLeave(...args: Array<string | number>): Promise<string | null>;
};

/** A delivery let through: give it back with `leave`. */
export interface GatePass {
  webhookId: number;
  userId: number;
  member: string;
  /** the half-open breaker's probe: its outcome closes or re-opens the breaker */
  probe: boolean;
}

/** What became of a delivery let through, for the breaker. */
export type GateOutcome = 'answered' | 'silent' | 'none';

/**
 * Fairness between webhooks (and their owners), shared by every worker through Redis:
 * - at most WEBHOOK_IN_FLIGHT deliveries of a webhook and USER_IN_FLIGHT of a user's webhooks are
 *   in flight at once; a delivery that finds them taken goes back to the queue as delayed (no
 *   attempt counted, no worker slot held) and is woken when a slot frees;
 * - a circuit breaker per webhook: after BREAKER_THRESHOLD consecutive deliveries without an
 *   answer (timeouts, refused or unreachable connections) its deliveries are held for
 *   BREAKER_BASE_MS, then a single probe is sent; its failure holds them twice as long (up to
 *   BREAKER_MAX_MS), any answer closes the breaker.
 * A receiver that never answers thus occupies at most two of the worker's slots, for a while, and
 * never delays the deliveries of other webhooks.
 */
@Injectable()
export class DeliveryGate {
  private readonly logger = new Logger(DeliveryGate.name);
  /** Tests shorten these. */
  breakerBaseMs = BREAKER_BASE_MS;
  breakerMaxMs = BREAKER_MAX_MS;
  waitMs = WAIT_MS;
  private defined = false;

  constructor(
    private readonly redis: RedisService,
    @InjectQueue(QUEUE.webhooks) private readonly queue: Queue<DeliverWebhookPayload>,
  ) {}

  /**
   * Lets the delivery through (the caller then calls `leave`), or puts the job back in the
   * queue, delayed (not an attempt), and throws BullMQ's DelayedError, which ends this run.
   */
  async enter(
    job: Job<DeliverWebhookPayload>,
    token: string | undefined,
    webhookId: number,
    userId: number,
  ): Promise<GatePass> {
    const member = String(job.id);
    const [state, value] = await this.client().webhookEnter(
      ...this.keys(webhookId, userId),
      member,
      WEBHOOK_IN_FLIGHT,
      USER_IN_FLIGHT,
      LEASE_MS,
      PROBE_WAIT_MS,
    );
    if (state === 0) return { webhookId, userId, member, probe: value === 1 };
    // held by the breaker: spread over a second, so that the held jobs do not all wake at once
    const wait = state === 1 ? value + Math.floor(Math.random() * 1000) : this.waitMs;
    await job.moveToDelayed(Date.now() + wait, token);
    throw new DelayedError();
  }

  /**
   * Gives the pass back, records the outcome, and wakes the next waiting delivery. Never throws:
   * the delivery's outcome stands (a slot not given back lapses after LEASE_MS).
   */
  async leave(pass: GatePass, outcome: GateOutcome): Promise<void> {
    try {
      await this.release(pass, outcome);
    } catch (err) {
      this.logger.warn(`webhook ${pass.webhookId}: slot not given back: ${(err as Error).message}`);
    }
  }

  private async release(pass: GatePass, outcome: GateOutcome): Promise<void> {
    const next = await this.client().webhookLeave(
      ...this.keys(pass.webhookId, pass.userId),
      pass.member,
      outcome,
      pass.probe ? 1 : 0,
      BREAKER_THRESHOLD,
      this.breakerBaseMs,
      this.breakerMaxMs,
    );
    if (!next) return;
    try {
      const job = await Job.fromId(this.queue, next);
      // not delayed yet (it is between finding the slots taken and being delayed): it wakes
      // after waitMs
      if (job && (await job.isDelayed())) await job.promote();
    } catch (err) {
      this.logger.debug(`waiting delivery ${next} not woken: ${(err as Error).message}`);
    }
  }

  /** The scripts' keys, all tagged with the user: one hash slot on a Redis Cluster. */
  private keys(webhookId: number, userId: number): string[] {
    const tag = ['webhook-user', userId];
    return [
      '5',
      this.redis.slotKey(tag, 'webhook', webhookId, 'in-flight'),
      this.redis.slotKey(tag, 'in-flight'),
      this.redis.slotKey(tag, 'webhook', webhookId, 'waiting'),
      this.redis.slotKey(tag, 'webhook', webhookId, 'breaker'),
      this.redis.slotKey(tag, 'waiting'),
    ];
  }

  private client(): GateRedis {
    if (!this.defined) {
      this.redis.client.defineCommand('webhookEnter', { lua: ENTER });
      this.redis.client.defineCommand('webhookLeave', { lua: LEAVE });
      this.defined = true;
    }
    return this.redis.client as unknown as GateRedis;
  }
}
