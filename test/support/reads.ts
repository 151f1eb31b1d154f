import { Client } from 'pg';

import { TestApp } from './app';
import { eventually } from './stats';

/** What Postgres's statistics say was read of some tables so far (pg_stat_user_*). */
export interface TableReads {
  /** rows (sequential and by index) and index entries read of the `read` tables */
  rows: number;
  /** scans (sequential and by index) of the `scanned` tables */
  scans: number;
}

const READS_SQL = `SELECT (SELECT COALESCE(sum(seq_tup_read + COALESCE(idx_tup_fetch, 0)), 0) FROM pg_stat_user_tables WHERE relname = ANY($1))
          + (SELECT COALESCE(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = ANY($1)) AS rows,
            (SELECT COALESCE(sum(seq_scan + COALESCE(idx_scan, 0)), 0) FROM pg_stat_user_tables WHERE relname = ANY($2)) AS scans`;

/** The replicas of the run (TEST_PG_REPLICA=1), none otherwise. */
function replicaUrls(): string[] {
  return (process.env.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
}

/**
 * Rows and index entries read of `read`, and scans of `scanned`: a request's reads are the
 * difference around it, once the api's connections have reported them (settledReads). Summed
 * over the primary and the run's replicas (each keeps the statistics of the queries it ran): a
 * list read on a replica (TEST_PG_REPLICA=1) is measured there.
 */
export async function tableReads(
  t: TestApp,
  read: string[],
  scanned: string[],
): Promise<TableReads> {
  const [r] = await t.db.query(READS_SQL, [read, scanned]);
  const total = { rows: Number(r.rows), scans: Number(r.scans) };
  for (const url of replicaUrls()) {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const [s] = (await client.query(READS_SQL, [read, scanned])).rows;
      total.rows += Number(s.rows);
      total.scans += Number(s.scans);
    } finally {
      await client.end();
    }
  }
  return total;
}

/**
 * The reads once every connection has reported its own: backends report their statistics when
 * idle, at most once a second (an index's sometimes later than its table's), so this reads until
 * two readings a second apart agree (at most 15 s).
 */
export async function quietReads(
  t: TestApp,
  read: string[],
  scanned: string[],
): Promise<TableReads> {
  let last = await tableReads(t, read, scanned);
  for (let i = 0; i < 15; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await tableReads(t, read, scanned);
    if (now.rows === last.rows && now.scans === last.scans) return now;
    last = now;
  }
  return last;
}

/**
 * The reads after requests that made at least `scans` scans of the `scanned` tables since `from`:
 * waits until they are reported (the same connections report their reads with them), then until
 * the statistics are quiet (quietReads).
 */
export async function settledReads(
  t: TestApp,
  read: string[],
  scanned: string[],
  from: TableReads,
  scans: number,
): Promise<TableReads> {
  await eventually(
    async () => (await tableReads(t, read, scanned)).scans >= from.scans + scans,
    15_000,
  );
  return quietReads(t, read, scanned);
}

/**
 * The fewest rows `act` read (with at least `scans` scans of `scanned`) in up to `tries` measures,
 * stopping at the first below `below`, and the last measure's result. Other readers of the same
 * tables in this database (a job an earlier test left running, on a busy machine) can only add to
 * a measure, so the fewest is the closest to the requests' own; a route that reads too much reads
 * too much every time.
 */
export async function fewestReads<T>(
  t: TestApp,
  read: string[],
  scanned: string[],
  scans: number,
  act: () => Promise<T>,
  below: number,
  tries = 3,
): Promise<{ rows: number; result: T }> {
  let rows = Infinity;
  let result!: T;
  for (let i = 0; i < tries && rows >= below; i++) {
    const before = await quietReads(t, read, scanned);
    result = await act();
    const after = await settledReads(t, read, scanned, before, scans);
    rows = Math.min(rows, after.rows - before.rows);
  }
  return { rows, result };
}
