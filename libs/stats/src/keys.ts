import { RedisService } from '@app/redis';

import type { VisitDimensions } from './record/visit-classifier';

/**
 * Redis layout of visit counters (all under the deployment prefix). The keys of a link live in
 * its partition `p` = link id mod STATS_PARTITIONS, whose keys share the hash tag `{st<p>}`: on a
 * Redis Cluster a partition is one hash slot, so every script and pipeline below touches one slot
 * while the partitions spread over the shards.
 *   st:{st<p>}:p:<link>          hash of pending deltas: fields `<day>|v|<country>|<referrer>|<browser>|<os>|<social>|<device>|<language>|<city>|<region>|<utm source>|<utm medium>|<utm campaign>|<referrer URL>|<device model>|<hour>`
 *                                count visits with that profile (see `profileField`); `<day>|<dim>[|<label>]`
 *                                fields, written by earlier versions, count one dimension each
 *   st:{st<p>}:dirty             set of the partition's link ids that have pending deltas
 *   st:{st<p>}:u:<link>:<day>    HyperLogLog of the day's visitor digests (expires 3 days after its last fold)
 *   st:{st<p>}:b:<batch>         set of link ids claimed by a fold batch of the partition
 *   st:{st<p>}:b:<batch>:<link>  a claimed pending hash, until its batch is applied and cleaned up
 *   st:{st<p>}:inflight          set of the partition's batch ids claimed and not yet cleaned up
 *   st:{st<p>}:kept              with read replicas: sorted set of the partition's batch ids applied
 *                                and cleaned up, by time, whose batch keys live on for the grace period
 *   st:cap:<user>:<yyyymm>       clicks counted this month for the user (the plan's `clicks` cap):
 *                                a key of its own slot, taken by a script of its own before the visit is recorded
 * Before partitions, the same keys had no `{st<p>}` part (`st:p:<link>`, `st:dirty`, ...): the
 * fold drains what is left of them (`legacy`) in single and sentinel mode.
 */
export class StatsKeys {
  /** Every partition's keys, by partition number. */
  readonly partitions: PartitionKeys[];
  /** The layout before partitions (a deployment upgrading may have counters pending there). */
  readonly legacy: PartitionKeys;
  /** A link's visitors HyperLogLog key, for the key sets (in the old layout too, the partition's). */
  private readonly visitorsOf = (linkId: number | string, day: string): string =>
    this.visitors(linkId, day);

  constructor(
    private readonly redis: Pick<RedisService, 'key'>,
    readonly count: number,
  ) {
    const base = redis.key('st');
    this.partitions = Array.from(
      { length: count },
      (_, p) => new PartitionKeys(`${base}:{st${p}}`, p, this.visitorsOf),
    );
    this.legacy = new PartitionKeys(base, -1, this.visitorsOf, `${base}:u`);
  }

  /**
   * The keys of the partition a batch id names (`p<partition>-...`); the layout before
   * partitions for batch ids without one (claimed by earlier versions).
   */
  ofBatch(batchId: string): PartitionKeys {
    const m = /^p(\d+)-/.exec(batchId);
    if (!m) return this.legacy;
    const p = Number(m[1]);
    return (
      this.partitions[p] ??
      new PartitionKeys(`${this.redis.key('st')}:{st${p}}`, p, this.visitorsOf)
    );
  }

  /** The partition of a link: its id modulo the partition count. */
  partitionOf(linkId: number | string): number {
    return Number(linkId) % this.count;
  }
  of(linkId: number | string): PartitionKeys {
    return this.partitions[this.partitionOf(linkId)];
  }
  pending(linkId: number | string): string {
    return this.of(linkId).pending(linkId);
  }
  visitors(linkId: number | string, day: string): string {
    return `${this.of(linkId).base}:u:${linkId}:${day}`;
  }
  cap(userId: number, month: string): string {
    return this.redis.key('st', 'cap', userId, month);
  }
}

/** The keys of one partition (all in one hash slot), or of the layout before partitions. */
export class PartitionKeys {
  constructor(
    readonly base: string,
    /** the partition number (-1: the layout before partitions) */
    readonly partition: number,
    /** the visitors HyperLogLog of a link's day (always in the link's partition) */
    readonly visitors: (linkId: number | string, day: string) => string,
    /**
     * Where the layout before partitions kept the visitors HyperLogLogs (`<base>:<link>:<day>`):
     * the fold merges them into the partition's before counting.
     */
    readonly formerVisitors?: string,
  ) {}

  pending(linkId: number | string): string {
    return `${this.base}:p:${linkId}`;
  }
  get dirty(): string {
    return `${this.base}:dirty`;
  }
  batch(batchId: string): string {
    return `${this.base}:b:${batchId}`;
  }
  batchLink(batchId: string, linkId: number | string): string {
    return `${this.base}:b:${batchId}:${linkId}`;
  }
  get inflight(): string {
    return `${this.base}:inflight`;
  }
  /** Batches applied lately whose keys are kept for reads on lagging replicas (FoldClaims.cleanup). */
  get kept(): string {
    return `${this.base}:kept`;
  }
}

// ---- scripts: each declares every key it touches (KEYS), all in one hash slot ----

/**
 * Takes one click of an owner's monthly allowance. KEYS: the cap counter. ARGV: cap (0 = none),
 * ttl. Returns 0 when the cap is reached (the visit is not counted), else 1 (the counter grew).
 */
export const TAKE_CAP_SCRIPT = `
local cap = tonumber(ARGV[1])
if cap > 0 and tonumber(redis.call('GET', KEYS[1]) or '0') >= cap then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * Records one visit. KEYS: pending hash, visitors HLL, dirty set (one partition). ARGV: link id,
 * HLL ttl, visitor digest, fields to increment (the visit's profile field)...
 */
export const RECORD_VISIT_SCRIPT = `
for i = 4, #ARGV do redis.call('HINCRBY', KEYS[1], ARGV[i], 1) end
redis.call('PFADD', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;

/**
 * Adds one flush chunk's aggregated visits (many links and days of one partition) in a single
 * call. KEYS[1]: the partition's dirty set; then for each entry its pending hash and its day's
 * visitors HLL. ARGV[1]: JSON array of entries `[link id, day, [field, ...], [increment, ...],
 * [visitor digest, ...]]`. One JSON argument, rather than thousands, keeps the api's share small:
 * serialising many arguments costs the redirecting process several times what Redis spends
 * running this. The HLLs' expiry is the fold's business (it reads every one written here), which
 * keeps this script to two calls per link-day. Returns the number of entries.
 */
export const RECORD_CHUNK_SCRIPT = `
local ids = {}
for i, e in ipairs(cjson.decode(ARGV[1])) do
  ids[i] = e[1]
  local pending, hll = KEYS[2 * i], KEYS[2 * i + 1]
  local fields, counts = e[3], e[4]
  for j = 1, #fields do redis.call('HINCRBY', pending, fields[j], counts[j]) end
  local digests = e[5]
  for first = 1, #digests, 1000 do
    redis.call('PFADD', hll, unpack(digests, first, math.min(first + 999, #digests)))
  end
end
if #ids > 0 then redis.call('SADD', KEYS[1], unpack(ids)) end
return #ids`;

/**
 * Claims candidate dirty links of one partition: each pending hash is renamed into the batch,
 * atomically, so visits recorded meanwhile start a fresh pending hash. KEYS: dirty set, inflight
 * set, batch set, then each candidate's pending hash and batch hash. ARGV: batch id, the
 * candidates' link ids. A candidate another fold claimed meanwhile has no pending hash: skipped.
 * Returns the claimed link ids and their hashes as READ_BATCH_SCRIPT answers them (the fold
 * reads what it claimed in the same call).
 */
export const CLAIM_BATCH_SCRIPT = `
local claimed, hashes = {}, {}
for j = 2, #ARGV do
  local id = ARGV[j]
  redis.call('SREM', KEYS[1], id)
  local src = KEYS[2 * j]
  if redis.call('EXISTS', src) == 1 then
    local dst = KEYS[2 * j + 1]
    redis.call('RENAME', src, dst)
    redis.call('SADD', KEYS[3], id)
    claimed[#claimed + 1] = id
    hashes[#hashes + 1] = redis.call('HGETALL', dst)
  end
end
if #claimed > 0 then redis.call('SADD', KEYS[2], ARGV[1]) end
return {claimed, hashes}`;

/**
 * Reads a claimed batch's hashes in one call (rather than a command each: the fold's client spends
 * more on a command than Redis does). KEYS: the batch's link hashes. Returns each one's HGETALL
 * (field, value, field, value, ...), in KEYS' order.
 */
export const READ_BATCH_SCRIPT = `
local out = {}
for i = 1, #KEYS do out[i] = redis.call('HGETALL', KEYS[i]) end
return out`;

/**
 * The unique visitors of the (link, day)s a batch touched, in one call: for each visitors
 * HyperLogLog, its count and its bytes (read after the count, which may cache the cardinality in
 * them), and its expiry renewed. KEYS: the HyperLogLogs. ARGV[1]: their time to live. Returns
 * count, sketch, count, sketch, ... in KEYS' order; a key that is not a HyperLogLog (no writer
 * makes one) answers false for both rather than fail the batch.
 */
export const READ_VISITORS_SCRIPT = `
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local n = redis.pcall('PFCOUNT', key)
  if type(n) == 'number' then
    out[2 * i - 1] = n
    out[2 * i] = redis.call('GET', key)
    redis.call('EXPIRE', key, ARGV[1])
  else
    out[2 * i - 1] = false
    out[2 * i] = false
  end
end
return out`;

/** A day's visitors HLL lives this long after its last write is folded. */
export const HLL_TTL_SECONDS = 3 * 24 * 3600;

/** Dimension codes used in counter fields and in the link_stats_dims table. */
export const DIM = {
  /** a visit profile: clicks plus one label of every dimension (pending fields only) */
  profile: 'v',
  clicks: 'c',
  /** no longer written (a day's clicks field marks it); ignored where earlier versions left it */
  uniques: 'u',
  country: 'co',
  referrer: 're',
  browser: 'br',
  os: 'os',
  social: 'so',
  /** device type: mobile, tablet, desktop, other */
  device: 'de',
  /** primary language of Accept-Language (ISO 639-1), or Unknown */
  language: 'la',
  /** `Paris, FR` (offline city database), or Unknown */
  city: 'ci',
  /** `Île-de-France, FR`, or Unknown */
  region: 'rg',
  utmSource: 'us',
  utmMedium: 'um',
  utmCampaign: 'uc',
  /** scheme, host and path of the referrer */
  referrerUrl: 'ru',
  /** device vendor and model */
  deviceModel: 'dm',
  /**
   * the visit's UTC hour (`00`…`23`) within its day: pending fields only; the fold writes it to
   * link_stats_hourly, never to link_stats_dims
   */
  hour: 'hr',
} as const;

/**
 * Dimensions whose labels come from what a visitor sends (headers, query) or from a large
 * database: the fold keeps at most STATS_LABELS_PER_DAY labels of each per link and day, and
 * counts the rest under OTHER_LABEL. Countries (about 250), social networks (3), devices (4) and
 * languages (two letters) are bounded by their labelling.
 */
export const CAPPED_DIMS: readonly string[] = [
  DIM.referrer,
  DIM.browser,
  DIM.os,
  DIM.city,
  DIM.region,
  DIM.utmSource,
  DIM.utmMedium,
  DIM.utmCampaign,
  DIM.referrerUrl,
  DIM.deviceModel,
];

/** The label that counts a link-day's visits past the label cap of a dimension. */
export const OTHER_LABEL = '(other)';

let memoSecond = -1;
let memoDay = '';

/** `YYYYMMDD` (UTC) of a date or epoch milliseconds; memoised per second, since every visit asks. */
export function dayKey(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== memoSecond) {
    memoSecond = second;
    memoDay = new Date(ms).toISOString().slice(0, 10).replace(/-/g, '');
  }
  return memoDay;
}

let hourSecond = -1;
let memoHour = '';

/** `YYYYMMDDHH` (UTC) of a date or epoch milliseconds; memoised per second like `dayKey`. */
export function hourKey(at: Date | number): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== hourSecond) {
    hourSecond = second;
    const iso = new Date(ms).toISOString();
    memoHour = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}`;
  }
  return memoHour;
}

/** `YYYYMM` (UTC) */
export function monthKey(d: Date): string {
  return d.toISOString().slice(0, 7).replace(/-/g, '');
}

/** `YYYYMMDD` → `YYYY-MM-DD` */
export function dayToIso(day: string): string {
  return `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;
}

/** Parses a pending field `<day>|<dim>[|<label>]`. */
export function parseField(field: string): { day: string; dim: string; label: string } | null {
  const first = field.indexOf('|');
  if (first !== 8) return null;
  const second = field.indexOf('|', first + 1);
  const dim = second < 0 ? field.slice(first + 1) : field.slice(first + 1, second);
  return { day: field.slice(0, 8), dim, label: second < 0 ? '' : field.slice(second + 1) };
}

/**
 * The pending field counting visits of one hour (`YYYYMMDDHH`, UTC) with these dimensions.
 * Visits with the same profile share one counter, so recording a visit is a single HINCRBY.
 * Labels never contain `|` (see `label`), so the field splits back unambiguously; an empty label
 * (no social network, no UTM value, no referrer URL, no device model) counts nothing.
 */
export function profileField(hour: string, d: VisitDimensions): string {
  // joined, not concatenated: one flat string. A template of 17 parts is a tree of cons strings
  // that the visitor memo keeps alive, that garbage collection copies, and that is flattened
  // again when the field is hashed in a flush (callgrind: ~3k instructions a new visitor)
  return [
    hour.slice(0, 8),
    DIM.profile,
    d.country,
    d.referrer,
    d.browser,
    d.os,
    d.social ?? '',
    d.device,
    d.language,
    d.city,
    d.region,
    d.utmSource,
    d.utmMedium,
    d.utmCampaign,
    d.referrerUrl,
    d.deviceModel,
    hour.slice(8, 10),
  ].join('|');
}

/**
 * Labels of a profile field, in order; fields written before devices and languages were counted
 * have the first five, before cities, UTM, referrer URLs, device models and hours the first seven.
 */
const PROFILE_DIMS = [
  DIM.country,
  DIM.referrer,
  DIM.browser,
  DIM.os,
  DIM.social,
  DIM.device,
  DIM.language,
  DIM.city,
  DIM.region,
  DIM.utmSource,
  DIM.utmMedium,
  DIM.utmCampaign,
  DIM.referrerUrl,
  DIM.deviceModel,
  DIM.hour,
];
const OLD_PROFILE_LABELS = [5, 7];

/** What one pending field counts, each as many times as the field's value. */
export interface FieldCounts {
  day: string;
  /** whether it counts clicks */
  clicks: boolean;
  /** (dimension, label) pairs it counts */
  dims: Array<[dim: string, label: string]>;
}

/** Reads a pending field: a visit profile, or a single dimension of earlier versions. */
export function fieldCounts(field: string): FieldCounts | null {
  const f = parseField(field);
  if (!f) return null;
  if (f.dim === DIM.profile) {
    const labels = f.label.split('|');
    if (labels.length !== PROFILE_DIMS.length && !OLD_PROFILE_LABELS.includes(labels.length))
      return null;
    const dims: Array<[string, string]> = [];
    PROFILE_DIMS.forEach((dim, i) => {
      if (labels[i]) dims.push([dim, labels[i]]);
    });
    return { day: f.day, clicks: true, dims };
  }
  if (f.dim === DIM.clicks) return { day: f.day, clicks: true, dims: [] };
  if (f.dim === DIM.uniques) return { day: f.day, clicks: false, dims: [] };
  return { day: f.day, clicks: false, dims: [[f.dim, f.label]] };
}
