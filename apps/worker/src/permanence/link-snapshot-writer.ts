import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';

import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryRunner } from 'typeorm';

import { AppConfig } from '@app/config';
import {
  BlocklistMatcher,
  CLICK_LIMIT_KEY,
  compactRow,
  parseBlocklistFile,
  RESOLVE_LINKS_AFTER_SQL,
  ResolveLinkRow,
  screenHost,
  Screener,
  SnapshotFileWriter,
  snapshotKey,
  snapshotPath,
  toHost,
} from '@app/links';
import { RedisService } from '@app/redis';

/** Rows read per query (keyset batches on the primary key: never the whole table at once). */
export const SNAPSHOT_BATCH = 10_000;
/** A snapshot is rewritten at least every this many intervals, changed or not (click counts). */
export const SNAPSHOT_FULL_EVERY = 10;
/** The bus caches whose invalidations mean a link or host answers differently now. */
const WATCHED = new Set(['link', 'host', 'blocklist']);

export interface SnapshotResult {
  links: number;
  hosts: number;
  bytes: number;
  ms: number;
}

/**
 * Writes the link snapshot (libs/links link-snapshot-format.ts; docs/link-permanence.md) every
 * SNAPSHOT_SECONDS into STORAGE_DIR: every short code served at `/<alias>` with its read model
 * (LINK_FIELDS, the same rows the api's link cache loads), the click-limit counters of limited
 * links, every branded domain (its redirects screened), and the blocklist's entries (the api
 * screens the links an outage asks for with them).
 *
 * - Streamed: keyset batches of SNAPSHOT_BATCH rows inside one REPEATABLE READ READ ONLY
 *   transaction (one consistent view, never a million rows in memory), written a megabyte at a
 *   time to a temporary file renamed over the previous snapshot when complete and signed. A
 *   failure (Postgres gone mid-way) removes the temporary file: the previous snapshot stays.
 * - Incremental where cheap: a snapshot is only rewritten when something it holds may have
 *   changed since the last one. Every change of what a short code or branded domain answers ends
 *   with an invalidation on the cache bus (`link`, `host`, `blocklist`; docs/architecture.md#the-cache-bus),
 *   so this listens on the bus channel and counts them; a (re)subscription, or a time without
 *   one, counts as a change (messages may have been missed). Every SNAPSHOT_FULL_EVERY intervals
 *   it is rewritten anyway (click counters move without an invalidation).
 * - Several workers: a Redis lock per write (skipped while Redis is unreachable).
 */
@Injectable()
export class LinkSnapshotWriter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(LinkSnapshotWriter.name);
  private readonly path: string;
  private readonly key: Buffer;
  private readonly fileEntries: string[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private closed = false;
  /** Invalidations heard (or assumed) since the last snapshot began. */
  private changes = 1;
  private listening = false;
  private skippedTicks = 0;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {
    this.path = snapshotPath(config.STORAGE_DIR);
    this.key = snapshotKey(config.secret);
    if (config.BLOCKLIST_FILE)
      this.fileEntries = parseBlocklistFile(readFileSync(config.BLOCKLIST_FILE, 'utf8')).entries;
  }

  onApplicationBootstrap(): void {
    const seconds = this.config.SNAPSHOT_SECONDS;
    if (!seconds) return;
    this.listen();
    const tick = () => {
      if (this.running || this.closed) return;
      this.running = this.maybeWrite()
        .catch((err: Error) =>
          this.logger.warn(`link snapshot not written (the previous one stays): ${err.message}`),
        )
        .finally(() => (this.running = undefined));
    };
    setImmediate(tick);
    this.timer = setInterval(tick, seconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** The bus channel, heard on a connection of its own: any watched invalidation is a change. */
  private listen(): void {
    const sub = this.redis.duplicate();
    const channel = this.redis.key('cache', 'bus');
    sub.on('ready', () => {
      sub.subscribe(channel).then(
        () => {
          this.listening = true;
          this.changes += 1;
        },
        (err: Error) => this.logger.warn(`link snapshot: bus subscribe failed: ${err.message}`),
      );
    });
    const down = () => {
      this.listening = false;
    };
    sub.on('close', down);
    sub.on('end', down);
    sub.on('message', (ch: string, raw: string) => {
      if (ch !== channel) return;
      // {"c":"<cache>",…}: the cache's name is all that matters (beats are not changes)
      const name = /^\{"c":"([^"]*)"/.exec(raw)?.[1];
      if (name !== undefined && WATCHED.has(name)) this.changes += 1;
    });
  }

  /** Writes a snapshot when something changed (or the file is missing, or one is due anyway). */
  async maybeWrite(): Promise<SnapshotResult | null> {
    const due = ++this.skippedTicks >= SNAPSHOT_FULL_EVERY;
    const changed = this.changes > 0 || !this.listening;
    const missing = await stat(this.path).then(
      () => false,
      () => true,
    );
    if (!due && !changed && !missing) return null;
    const lock = this.redis.key('snapshot', 'lock');
    const token = `${process.pid}-${Date.now()}-${Math.random()}`;
    let locked = false;
    if (this.redis.ready) {
      const ttl = Math.max(60, this.config.SNAPSHOT_SECONDS * 2);
      if ((await this.redis.client.set(lock, token, 'EX', ttl, 'NX')) !== 'OK') return null;
      locked = true;
    }
    try {
      return await this.write();
    } finally {
      if (locked && (await this.redis.client.get(lock).catch(() => null)) === token)
        await this.redis.client.del(lock).catch(() => undefined);
    }
  }

  /** Writes a snapshot now (serialised with the scheduled ones). */
  async writeNow(): Promise<SnapshotResult> {
    await this.running?.catch(() => undefined);
    const run = this.write();
    this.running = run.catch(() => undefined).finally(() => (this.running = undefined));
    return run;
  }

  private async write(): Promise<SnapshotResult> {
    const started = Date.now();
    // changes heard from now on are not in this snapshot for sure: they count for the next one
    const seen = this.changes;
    const runner = this.db.createQueryRunner();
    await runner.connect();
    let writer: SnapshotFileWriter | undefined;
    try {
      await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // the batch query's estimated cost (the bio pages' subquery, never run for plain links)
      // crosses jit_above_cost: JIT compiling took 1.4 s of each 1.5 s batch
      await runner.query('SET LOCAL jit = off');
      const entries = await this.blocklist(runner);
      const matcher = new BlocklistMatcher(entries);
      const screener = { generation: 1, match: (url: string) => matcher.match(url) };
      writer = await SnapshotFileWriter.open(this.path, this.key, started);
      writer.blocklist(entries);
      await this.writeHosts(runner, writer, screener);
      await this.writeLinks(runner, writer);
      await runner.query('COMMIT');
      const { links, hosts } = writer;
      const bytes = await writer.commit();
      writer = undefined;
      this.changes -= seen;
      this.skippedTicks = 0;
      const ms = Date.now() - started;
      this.logger.log(`link snapshot: ${links} links, ${hosts} hosts, ${bytes} bytes in ${ms} ms`);
      return { links, hosts, bytes, ms };
    } catch (err) {
      await writer?.abort();
      await runner.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** The blocklist as of this snapshot: BLOCKLIST_FILE and the admins' entries. */
  private async blocklist(runner: QueryRunner): Promise<string[]> {
    const rows: Array<{ entry: string }> = await runner.query('SELECT entry FROM blocklist');
    return [...this.fileEntries, ...rows.map((r) => r.entry)];
  }

  private async writeHosts(
    runner: QueryRunner,
    writer: SnapshotFileWriter,
    screener: Screener,
  ): Promise<void> {
    for (let after = 0; ;) {
      const rows: Array<{
        id: number;
        host: string;
        redirect_root: string;
        redirect_404: string;
        verified: boolean;
      }> = await runner.query(
        `SELECT id, host, redirect_root, redirect_404, verified_at IS NOT NULL AS verified
           FROM domains WHERE id > $1 ORDER BY id LIMIT $2`,
        [after, SNAPSHOT_BATCH],
      );
      for (const r of rows) {
        const host = toHost({
          id: r.id,
          redirectRoot: r.redirect_root,
          redirect404: r.redirect_404,
          verified: r.verified,
        });
        screenHost(screener, host);
        writer.host(r.host, host);
      }
      await writer.flush();
      if (rows.length < SNAPSHOT_BATCH) return;
      after = rows[rows.length - 1].id;
    }
  }

  private async writeLinks(runner: QueryRunner, writer: SnapshotFileWriter): Promise<void> {
    const batch = (after: number): Promise<ResolveLinkRow[]> => {
      const rows: Promise<ResolveLinkRow[]> = runner.query(RESOLVE_LINKS_AFTER_SQL, [
        after,
        SNAPSHOT_BATCH,
      ]);
      // a write that fails before awaiting it must not leave an unhandled rejection
      rows.catch(() => undefined);
      return rows;
    };
    // the next batch is asked for before this one is written: Postgres reads it meanwhile
    let next: Promise<ResolveLinkRow[]> | null = batch(0);
    while (next) {
      if (this.closed) throw new Error('worker shutting down');
      const rows: ResolveLinkRow[] = await next;
      next = rows.length === SNAPSHOT_BATCH ? batch(rows[rows.length - 1].id) : null;
      const links = rows.map(compactRow);
      const clicks = await this.clickCounts(links.filter((l) => l.clickLimit != null));
      for (const link of links)
        writer.link(link.alias as string, link, clicks.get(link.id as number) ?? 0);
      await writer.flush();
    }
  }

  /** The click-limit counters of limited links (none while Redis is unreachable: 0). */
  private async clickCounts(limited: Array<{ id?: number }>): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    if (!limited.length || !this.redis.ready) return counts;
    const client = this.redis.client;
    const values = await Promise.all(
      limited.map((l) =>
        client
          .get(this.redis.key(CLICK_LIMIT_KEY, l.id as number))
          .catch(() => null as string | null),
      ),
    );
    limited.forEach((l, i) => counts.set(l.id as number, Number(values[i] ?? 0) || 0));
    return counts;
  }
}
