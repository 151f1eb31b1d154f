/** A point of the primary's WAL position over time: at `at` (ms), the primary had written up to `lsn`. */
export interface WalSample {
  at: number;
  lsn: bigint;
}

/** A Postgres LSN (`16/B374D848`) as a number. */
export function parseLsn(text: string): bigint {
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
}

/**
 * How far (seconds) a standby that has replayed the primary's WAL up to `replayed` is behind,
 * from the primary's positions sampled over time (oldest first): 0 once it has replayed what the
 * latest sample saw; else the age of the latest sample it has fully replayed (what it misses was
 * written after that one), or, when it is behind every sample, the age of the oldest. Measured
 * on WAL positions rather than `now() - pg_last_xact_replay_timestamp()`, which grows without
 * end while the primary is idle although the standby misses nothing. Null without samples.
 */
export function replicaLagSeconds(
  samples: WalSample[],
  replayed: bigint,
  now: number,
): number | null {
  if (!samples.length) return null;
  if (replayed >= samples[samples.length - 1].lsn) return 0;
  let caughtUp: WalSample | undefined;
  for (const s of samples) {
    if (s.lsn > replayed) break;
    caughtUp = s;
  }
  return Math.max(0, now - (caughtUp ?? samples[0]).at) / 1000;
}
