import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '@app/config';
import { ReadReplicas } from '@app/database';
import { RedisService } from '@app/redis';

import { countRegisters, emptyRegisters, HLL_REGISTERS, mergeHll, mergeRegisters } from '../hll';
import { StatsKeys } from '../keys';
import { PartitionPipelines } from '../partition-pipelines';
import { addDays, dayNumber, dayString, fullMonths, isoDay } from './stats-range';

/** The most short codes one reach read covers (pairwise overlaps grow with its square). */
export const MAX_REACH_LINKS = 50;

/**
 * The relative standard error of a count of the sketches in use (1.04 / √m, m = 16 384
 * registers): 0.0081.
 */
export const REACH_ERROR = Number((1.04 / Math.sqrt(HLL_REGISTERS)).toFixed(6));

/** Sketches merged (or pairs counted) per turn of the event loop: about 2 ms of work. */
const MERGES_PER_TURN = 64;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Days whose Redis sketch may hold visits not folded yet (a day's sketch lives 3 days after its last fold). */
const LIVE_DAYS = 4;

export interface Reach {
  /** distinct visitors of the union of every link's sketches over the range */
  visitors: number;
  links: Array<{ id: number; visitors: number }>;
  /** every pair (a before b in the order asked), |A| + |B| − |A ∪ B|, never below 0 */
  overlap: Array<{ a: number; b: number; visitors: number }>;
  /** the relative standard error of each count (REACH_ERROR) */
  error: number;
}

/**
 * Distinct visitors of a set of short codes over a range of days, from the stored sketches (no
 * address is kept anywhere): per link, the union of its month sketches (calendar months wholly in
 * the range), its other days' sketches, and Redis's sketches of the last days (visits not folded
 * yet); the reach is the union of the links' unions, a pair's overlap by inclusion–exclusion.
 * Cost: at most MAX_REACH_LINKS links × (14 month + 62 day) sketches in one query on a replica,
 * one Redis pipeline per partition for at most LIVE_DAYS days per link, and n(n−1)/2 unions of
 * 16 384 registers, MERGES_PER_TURN at a time (worst case, 50 links × 400 days of dense
 * sketches: about 1.1 s, the event loop free between slices).
 */
@Injectable()
export class ReachReader {
  private readonly logger = new Logger(ReachReader.name);
  private readonly keys: StatsKeys;

  constructor(
    private readonly redis: RedisService,
    config: AppConfig,
    private readonly replicas: ReadReplicas,
  ) {
    this.keys = new StatsKeys(redis, config.STATS_PARTITIONS);
  }

  /** The reach of `linkIds` (the caller's, checked) over `from`..`to` (checked, inclusive). */
  async read(linkIds: number[], from: string, to: string): Promise<Reach> {
    const ids = [...new Set(linkIds)].slice(0, MAX_REACH_LINKS);
    const registers = new Map(ids.map((id) => [id, emptyRegisters()]));
    if (ids.length && dayNumber(from) <= dayNumber(to)) {
      const [rows, live] = await Promise.all([
        this.stored(ids, from, to),
        this.live(ids, from, to),
      ]);
      // merged a slice at a time, a turn of the event loop between slices: a large read never
      // holds up the process's other requests (redirects among them) for more than a slice
      const all = [...rows, ...live];
      for (let k = 0; k < all.length; k++) {
        if (k && k % MERGES_PER_TURN === 0) await nextTurn();
        const [id, sketch] = all[k];
        const r = registers.get(id);
        if (r && sketch) mergeHll(r, sketch);
      }
    }
    const counts = ids.map((id) => countOf(registers.get(id) as Uint8Array));
    const union = emptyRegisters();
    for (const r of registers.values()) mergeRegisters(union, r);
    const overlap: Reach['overlap'] = [];
    const pair = emptyRegisters();
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) {
        if (overlap.length && overlap.length % MERGES_PER_TURN === 0) await nextTurn();
        let visitors = 0;
        if (counts[i] && counts[j]) {
          pair.set(registers.get(ids[i]) as Uint8Array);
          mergeRegisters(pair, registers.get(ids[j]) as Uint8Array);
          visitors = Math.max(0, counts[i] + counts[j] - countRegisters(pair));
        }
        overlap.push({ a: ids[i], b: ids[j], visitors });
      }
    return {
      visitors: countOf(union),
      links: ids.map((id, i) => ({ id, visitors: counts[i] })),
      overlap,
      error: REACH_ERROR,
    };
  }

  /**
   * The stored sketches: each whole month's, and the range's other days' (days folded before
   * sketches were kept have none and are left out).
   */
  private stored(ids: number[], from: string, to: string): Promise<Array<[number, Buffer]>> {
    const months = fullMonths(from, to).map((m) => `${m}-01`);
    return this.replicas
      .read(
        (db) =>
          db.query(
            `SELECT link_id, sketch FROM link_stats_daily
              WHERE link_id = ANY($1::int[]) AND day BETWEEN $2 AND $3 AND sketch IS NOT NULL
                AND NOT (date_trunc('month', day)::date = ANY($4::date[]))
             UNION ALL
             SELECT link_id, sketch FROM link_stats_monthly
              WHERE link_id = ANY($1::int[]) AND month = ANY($4::date[])`,
            [ids, from, to, months],
          ) as Promise<Array<{ link_id: number; sketch: Buffer }>>,
      )
      .then((rows) => rows.map((r) => [r.link_id, r.sketch] as [number, Buffer]));
  }

  /**
   * Redis's sketches of the range's last LIVE_DAYS days up to today: they hold the day's folded
   * visitors and those not folded yet (a union with the stored one changes nothing else).
   */
  private async live(ids: number[], from: string, to: string): Promise<Array<[number, Buffer]>> {
    if (!this.redis.ready) return [];
    const today = isoDay(Date.now());
    const first = Math.max(dayNumber(from), dayNumber(addDays(today, 1 - LIVE_DAYS)));
    const last = Math.min(dayNumber(to), dayNumber(today));
    if (first > last) return [];
    const wanted: Array<[number, string]> = [];
    for (const id of ids)
      for (let n = first; n <= last; n++) wanted.push([id, dayString(n).replace(/-/g, '')]);
    try {
      const pipelines = new PartitionPipelines(this.redis.client, this.keys);
      for (const [id, day] of wanted) {
        const key = this.keys.visitors(id, day);
        pipelines.add(this.keys.partitionOf(id), (p) => p.getBuffer(key));
      }
      const out: Array<[number, Buffer]> = [];
      (await pipelines.exec()).forEach(([err, blob], i) => {
        if (!err && blob) out.push([wanted[i][0], blob as Buffer]);
      });
      return out;
    } catch (err) {
      this.logger.warn(`live visitor sketches unavailable: ${(err as Error).message}`);
      return [];
    }
  }
}

/** The count of a set of registers (0 when none is set: no sketch merged). */
function countOf(registers: Uint8Array): number {
  for (let r = 0; r < registers.length; r++) if (registers[r]) return countRegisters(registers);
  return 0;
}
