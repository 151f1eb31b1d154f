import { RedisService } from '@app/redis';

/**
 * Redis layout of visit counters (all under the deployment prefix):
 *   st:p:<link>            hash of pending deltas, fields `<day>|<dim>[|<label>]`
 *   st:dirty               set of link ids that have pending deltas
 *   st:u:<link>:<day>      HyperLogLog of the day's visitor digests (expires after 3 days)
 *   st:cap:<user>:<yyyymm> clicks counted this month for the user (the plan's `clicks` cap)
 *   st:b:<batch>           set of link ids claimed by a fold batch
 *   st:b:<batch>:<link>    a claimed pending hash, until its batch is applied and cleaned up
 *   st:inflight            set of batch ids claimed and not yet cleaned up
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
}

/** Dimension codes used in counter fields and in the link_stats_dims table. */
export const DIM = {
  clicks: 'c',
  uniques: 'u',
  country: 'co',
  referrer: 're',
  browser: 'br',
  os: 'os',
  social: 'so',
} as const;

let memoSecond = -1;
let memoDay = '';

/** `YYYYMMDD` (UTC); memoised per second, since every visit asks for it. */
export function dayKey(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== memoSecond) {
    memoSecond = second;
    memoDay = d.toISOString().slice(0, 10).replace(/-/g, '');
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
