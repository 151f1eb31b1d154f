import { ChainableCommander } from 'ioredis';
import { EntityManager } from 'typeorm';

import { isCluster, RedisClient, RedisService } from '@app/redis';

import { fieldCounts, PartitionKeys, StatsKeys } from '../keys';
import { PartitionPipelines } from '../partition-pipelines';

/** Not-yet-folded counts of one link on one day. */
export interface PendingDay {
  clicks: number;
  /** dimension → label → visits */
  dims: Map<string, Map<string, number>>;
}

/** link id → day (`YYYYMMDD`) → pending counts. */
export type PendingCounters = Map<number, Map<string, PendingDay>>;

/** Above this many links, those with nothing pending are filtered out first (one round trip). */
const FILTER_OVER = 64;

/**
 * The claimed batches of partitions: for each pair of KEYS (a partition's inflight set, then its
 * kept sorted set), the members of each, in that order (one call: the clean-up moves a batch from
 * one to the other atomically, so none slips between them).
 */
const CLAIMED_BATCHES_SCRIPT = `
local out = {}
for i = 1, #KEYS, 2 do
  out[#out + 1] = redis.call('SMEMBERS', KEYS[i])
  out[#out + 1] = redis.call('ZRANGE', KEYS[i + 1], 0, -1)
end
return out`;

interface BatchReading {
  claimedBatches(numberOfKeys: number, ...keys: string[]): this;
}

/** `client` with the claimedBatches command defined (once). */
function batchReader(client: RedisClient): RedisClient {
  if (!('claimedBatches' in client))
    client.defineCommand('claimedBatches', { lua: CLAIMED_BATCHES_SCRIPT });
  return client;
}

/** Links of one partition, with the partition's claimed batches not yet applied. */
interface PartitionLinks {
  keys: PartitionKeys;
  linkIds: number[];
  unapplied: string[];
}

/** The links grouped by partition. */
function byPartition(keys: StatsKeys, linkIds: number[]): PartitionLinks[] {
  const groups = new Map<number, PartitionLinks>();
  for (const id of linkIds) {
    const p = keys.partitionOf(id);
    let group = groups.get(p);
    if (!group) groups.set(p, (group = { keys: keys.partitions[p], linkIds: [], unapplied: [] }));
    group.linkIds.push(id);
  }
  return [...groups.values()];
}

/**
 * Sets each partition's `unapplied`: its batches whose id is not in `stat_batches` as `db` sees
 * it (applied batches are counted by Postgres already). The batches are those claimed and not
 * cleaned up (`inflight`) and, with read replicas, those applied lately whose keys are kept for
 * lagging replicas (`kept`): a replica that has not replayed a batch counts it from Redis. Both
 * read by one script call (CLAIMED_BATCHES_SCRIPT) per server, or per partition on a cluster:
 * one command where a page's links touch many partitions.
 */
async function findUnapplied(
  redis: RedisService,
  db: Pick<EntityManager, 'query'>,
  keys: StatsKeys,
  groups: PartitionLinks[],
): Promise<void> {
  // one script per pipeline (the partitions of one server; on a cluster, one partition: a slot)
  const split = isCluster(redis.client);
  const calls = new Map<number, PartitionLinks[]>();
  for (const g of groups) {
    const at = split ? g.keys.partition : 0;
    calls.set(at, [...(calls.get(at) ?? []), g]);
  }
  const client = batchReader(redis.client);
  const pipelines = new PartitionPipelines<BatchReading & ChainableCommander>(client, keys);
  for (const gs of calls.values()) {
    const sets = gs.flatMap((g) => [g.keys.inflight, g.keys.kept]);
    pipelines.add(gs[0].keys.partition, (p) => p.claimedBatches(sets.length, ...sets));
  }
  const replies = new Map<PartitionLinks, string[][]>();
  const answered = await pipelines.exec();
  [...calls.values()].forEach((gs, c) => {
    const [err, lists] = answered[c];
    if (err) throw err;
    gs.forEach((g, i) => replies.set(g, (lists as string[][]).slice(2 * i, 2 * i + 2)));
  });
  const inflight = groups.map((g) => [...new Set(replies.get(g)!.flat())]);
  const all = inflight.flat();
  if (!all.length) return;
  const applied = await db.query(
    `SELECT batch_id FROM stat_batches WHERE batch_id = ANY($1::varchar[])`,
    [all],
  );
  const done = new Set((applied as Array<{ batch_id: string }>).map((r) => r.batch_id));
  groups.forEach((g, i) => (g.unapplied = inflight[i].filter((b) => !done.has(b))));
}

/**
 * Keeps in each partition the links that may have deltas: members of the partition's dirty set
 * (every pending hash's link is: the recording scripts add it, and the claim takes both at once)
 * or of an unapplied batch. An account of thousands of links then reads the hashes of the few
 * visited lately.
 */
async function keepPending(
  redis: RedisService,
  keys: StatsKeys,
  groups: PartitionLinks[],
): Promise<void> {
  const pipelines = new PartitionPipelines(redis.client, keys);
  const sets = groups.map((g) => [g.keys.dirty, ...g.unapplied.map((b) => g.keys.batch(b))]);
  groups.forEach((g, i) => {
    const members = g.linkIds.map(String);
    for (const set of sets[i])
      pipelines.add(g.keys.partition, (p) => p.smismember(set, ...members));
  });
  const replies = await pipelines.exec();
  let r = 0;
  groups.forEach((g, i) => {
    const mine = replies.slice(r, (r += sets[i].length));
    g.linkIds = g.linkIds.filter((_, k) =>
      mine.some(([err, flags]) => err !== null || (flags as number[])[k] === 1),
    );
  });
}

/**
 * The deltas of `linkIds` still in Redis: each link's pending hash plus the batches of its
 * partition whose id is not in `stat_batches` as `db` sees it, per day. On a replica that has not
 * replayed a batch applied lately, that batch counts from Redis (its keys are kept for a grace
 * period: FoldClaims.cleanup), so the read neither loses nor doubles it. Throws when Redis or
 * Postgres fails; callers decide what a read without them returns.
 */
export async function readPending(
  redis: RedisService,
  db: Pick<EntityManager, 'query'>,
  keys: StatsKeys,
  linkIds: number[],
): Promise<PendingCounters> {
  const out: PendingCounters = new Map();
  if (!linkIds.length) return out;
  const groups = byPartition(keys, linkIds);
  await findUnapplied(redis, db, keys, groups);
  if (linkIds.length > FILTER_OVER) await keepPending(redis, keys, groups);
  const pipelines = new PartitionPipelines(redis.client, keys);
  const read: number[] = [];
  for (const g of groups)
    for (const id of g.linkIds) {
      const pending = g.keys.pending(id);
      pipelines.add(g.keys.partition, (p) => p.hgetall(pending));
      read.push(id);
      for (const b of g.unapplied) {
        const claimed = g.keys.batchLink(b, id);
        pipelines.add(g.keys.partition, (p) => p.hgetall(claimed));
        read.push(id);
      }
    }
  (await pipelines.exec()).forEach(([err, hash], i) => {
    if (err || !hash) return;
    const id = read[i];
    for (const [field, value] of Object.entries(hash as Record<string, string>)) {
      const f = fieldCounts(field);
      if (!f) continue;
      const n = Number(value);
      let days = out.get(id);
      if (!days) out.set(id, (days = new Map()));
      let day = days.get(f.day);
      if (!day) days.set(f.day, (day = { clicks: 0, dims: new Map() }));
      if (f.clicks) day.clicks += n;
      for (const [dim, label] of f.dims) bump(day.dims, dim, label, n);
    }
  });
  return out;
}

/** Adds `n` to `map[dim][label]`. */
export function bump(
  map: Map<string, Map<string, number>>,
  dim: string,
  label: string,
  n: number,
): void {
  let labels = map.get(dim);
  if (!labels) map.set(dim, (labels = new Map<string, number>()));
  labels.set(label, (labels.get(label) ?? 0) + n);
}
