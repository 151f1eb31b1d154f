import { RedisService } from '@app/redis';

import type { VisitDimensions } from './record/visit-classifier';

/**
 * Redis layout of visit counters (all under the deployment prefix):
 *   st:p:<link>            hash of pending deltas: fields `<day>|v|<country>|<referrer>|<browser>|<os>|<social>|<device>|<language>`
 *                          count visits with that profile (see `profileField`); `<day>|<dim>[|<label>]`
 *                          fields, written by earlier versions, count one dimension each
 *   st:dirty               set of link ids that have pending deltas
 *   st:u:<link>:<day>      HyperLogLog of the day's visitor digests (expires 3 days after its last fold)
 *   st:cap:<user>:<yyyymm> clicks counted this month for the user (the plan's `clicks` cap)
 *   st:b:<batch>           set of link ids claimed by a fold batch
 *   st:b:<batch>:<link>    a claimed pending hash, until its batch is applied and cleaned up
 *   st:inflight            set of batch ids claimed and not yet cleaned up
 *   st:kept                with read replicas: sorted set of batch ids applied and cleaned up, by
 *                          time, whose st:b:<batch>… keys live on for the replica grace period
 */
export class StatsKeys {
  constructor(private readonly redis: RedisService) {}

  get base(): string {
    return this.redis.key('st');
  }
  pending(linkId: number | string): string {
    return `${this.base}:p:${linkId}`;
  }
  get dirty(): string {
    return `${this.base}:dirty`;
  }
  visitors(linkId: number | string, day: string): string {
    return `${this.base}:u:${linkId}:${day}`;
  }
  cap(userId: number, month: string): string {
    return `${this.base}:cap:${userId}:${month}`;
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
  /** Batches applied lately whose keys are kept for reads on lagging replicas (see FoldClaims.cleanup). */
  get kept(): string {
    return `${this.base}:kept`;
  }
}

// ---- scripts: they build keys from `StatsKeys.base` themselves, so they live with the layout ----

/**
 * One atomic round trip per counted visit. KEYS: cap, pending, visitors HLL, dirty set.
 * ARGV: cap (0 = none), link id, cap ttl, HLL ttl, visitor digest, fields to increment (the
 * visit's profile field)...
 * Returns 0 when the owner's monthly cap is reached (the visit is not counted), else 1.
 */
export const RECORD_VISIT_SCRIPT = `
local cap = tonumber(ARGV[1])
if cap > 0 and tonumber(redis.call('GET', KEYS[1]) or '0') >= cap then return 0 end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
for i = 6, #ARGV do redis.call('HINCRBY', KEYS[2], ARGV[i], 1) end
redis.call('PFADD', KEYS[3], ARGV[5])
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[2])
return 1`;

/**
 * Adds one flush chunk's aggregated visits (many links and days) in a single call.
 * KEYS[1]: the dirty set. ARGV[1]: the stats key base (`StatsKeys.base`); ARGV[2]: JSON array
 * of entries `[link id, day, [field, ...], [increment, ...], [visitor digest, ...]]`. One JSON
 * argument, rather than thousands, keeps the api's share small: serialising many arguments
 * costs the redirecting process several times what Redis spends running this. Pending hash and HLL keys
 * are built here from the base (like the fold's claim script: one Redis primary, not a cluster).
 * The HLLs' expiry is the fold's business (it reads every one written here), which keeps this
 * script to two calls per link-day. Returns the number of entries.
 */
export const RECORD_CHUNK_SCRIPT = `
local base = ARGV[1]
local ids = {}
for _, e in ipairs(cjson.decode(ARGV[2])) do
  local id = e[1]
  ids[#ids + 1] = id
  local pending = base .. ':p:' .. id
  local fields, counts = e[3], e[4]
  for j = 1, #fields do redis.call('HINCRBY', pending, fields[j], counts[j]) end
  local digests = e[5]
  local hll = base .. ':u:' .. id .. ':' .. e[2]
  for first = 1, #digests, 1000 do
    redis.call('PFADD', hll, unpack(digests, first, math.min(first + 999, #digests)))
  end
end
if #ids > 0 then redis.call('SADD', KEYS[1], unpack(ids)) end
return #ids`;

/**
 * Claims up to ARGV[3] dirty links: each pending hash is renamed into the batch, atomically, so
 * visits recorded meanwhile start a fresh pending hash. KEYS: dirty set, inflight set.
 * ARGV: key base, batch id, max links. Returns the claimed link ids.
 */
export const CLAIM_BATCH_SCRIPT = `
local ids = redis.call('SPOP', KEYS[1], tonumber(ARGV[3]))
local claimed = {}
for _, id in ipairs(ids) do
  local src = ARGV[1] .. ':p:' .. id
  if redis.call('EXISTS', src) == 1 then
    redis.call('RENAME', src, ARGV[1] .. ':b:' .. ARGV[2] .. ':' .. id)
    redis.call('SADD', ARGV[1] .. ':b:' .. ARGV[2], id)
    table.insert(claimed, id)
  end
end
if #claimed > 0 then redis.call('SADD', KEYS[2], ARGV[2]) end
return claimed`;

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
} as const;

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
 * The pending field counting visits of one day with these dimensions. Visits with the same
 * profile share one counter, so recording a visit is a single HINCRBY. Labels never contain `|`
 * (see `label`), so the field splits back unambiguously.
 */
export function profileField(day: string, d: VisitDimensions): string {
  return `${day}|${DIM.profile}|${d.country}|${d.referrer}|${d.browser}|${d.os}|${d.social ?? ''}|${d.device}|${d.language}`;
}

/** Labels of a profile field, in order; fields written before devices and languages were counted have the first five. */
const PROFILE_DIMS = [
  DIM.country,
  DIM.referrer,
  DIM.browser,
  DIM.os,
  DIM.social,
  DIM.device,
  DIM.language,
];
const OLD_PROFILE_LABELS = 5;

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
    if (labels.length !== PROFILE_DIMS.length && labels.length !== OLD_PROFILE_LABELS) return null;
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
