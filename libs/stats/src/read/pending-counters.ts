import { EntityManager } from 'typeorm';

import { RedisService } from '@app/redis';

import { fieldCounts, StatsKeys } from '../keys';

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
 * The links among `linkIds` that may have deltas: members of the dirty set (every pending hash's
 * link is: the recording scripts add it, and the claim takes both at once) or of an unapplied
 * batch. An account of thousands of links then reads the hashes of the few visited lately.
 */
async function withPending(
  redis: RedisService,
  keys: StatsKeys,
  linkIds: number[],
  unapplied: string[],
): Promise<number[]> {
  const pipeline = redis.client.pipeline();
  for (const set of [keys.dirty, ...unapplied.map((b) => keys.batch(b))])
    pipeline.smismember(set, ...linkIds.map(String));
  const replies = (await pipeline.exec()) ?? [];
  return linkIds.filter((_, i) =>
    replies.some(([err, flags]) => err !== null || (flags as number[])[i] === 1),
  );
}

/**
 * The batches a read must consider: those claimed and not cleaned up, and those applied lately
 * whose keys are kept for lagging replicas (`st:kept`). One round trip, in this order: a clean-up
 * moves a batch from the first to the second atomically, so it is never missed between them.
 */
async function batchesInRedis(redis: RedisService, keys: StatsKeys): Promise<string[]> {
  const [[e1, inflight], [e2, kept]] = (await redis.client
    .pipeline()
    .smembers(keys.inflight)
    .zrange(keys.kept, 0, -1)
    .exec()) as Array<[Error | null, string[]]>;
  if (e1 || e2) throw e1 ?? e2;
  return [...new Set([...inflight, ...kept])];
}

/**
 * The deltas of `linkIds` still in Redis: each link's pending hash plus the batches whose id is
 * not in `stat_batches` as `db` sees it (applied batches are counted by Postgres already), per
 * day. On a replica that has not replayed a batch applied lately, that batch counts from Redis
 * (its keys are kept for a grace period: FoldClaims.cleanup), so the read neither loses nor
 * doubles it. Throws when Redis or Postgres fails; callers decide what a read without them
 * returns.
 */
export async function readPending(
  redis: RedisService,
  db: Pick<EntityManager, 'query'>,
  keys: StatsKeys,
  linkIds: number[],
): Promise<PendingCounters> {
  const out: PendingCounters = new Map();
  if (!linkIds.length) return out;
  const inflight = await batchesInRedis(redis, keys);
  let unapplied: string[] = [];
  if (inflight.length) {
    const applied = await db.query(
      `SELECT batch_id FROM stat_batches WHERE batch_id = ANY($1::varchar[])`,
      [inflight],
    );
    const done = new Set((applied as Array<{ batch_id: string }>).map((r) => r.batch_id));
    unapplied = inflight.filter((b) => !done.has(b));
  }
  if (linkIds.length > FILTER_OVER) linkIds = await withPending(redis, keys, linkIds, unapplied);
  const pipeline = redis.client.pipeline();
  for (const id of linkIds) {
    pipeline.hgetall(keys.pending(id));
    for (const b of unapplied) pipeline.hgetall(keys.batchLink(b, id));
  }
  const replies = (await pipeline.exec()) ?? [];
  const per = 1 + unapplied.length;
  linkIds.forEach((id, i) => {
    for (let j = 0; j < per; j++) {
      const [err, hash] = replies[i * per + j] ?? [];
      if (err || !hash) continue;
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
