import { readFileSync } from 'node:fs';

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { AppConfig } from '@app/config';
import { BlocklistEntry } from '@app/database';
import { BusMember, CacheBus } from '@app/redis';

import { BlocklistMatcher, DestinationSpellings, parseBlocklistFile } from './blocklist-matcher';

/** URLs whose `match` answer is kept (some MB at most). */
const MAX_ANSWERS = 10_000;

/**
 * The blocked destinations every api process checks: BLOCKLIST_FILE (read at start) plus the
 * entries admins add (Postgres). Held in memory; a change made on any replica reaches every one
 * within moments over the CacheBus, and a replica that lost its subscription reloads when it is
 * back. `generation` grows with every reload, so whatever serves a cached destination re-screens
 * it lazily (the api's screenLink and screenHost, the bio pages' buttons): the one way a target blocked later
 * stops working everywhere within moments.
 */
@Injectable()
export class Blocklist implements OnModuleInit, BusMember {
  private readonly logger = new Logger(Blocklist.name);
  private readonly fileEntries: string[] = [];
  private matcher = new BlocklistMatcher([]);
  /** `match` answers of the current list, by URL (bounded: cleared when full). */
  private answers = new Map<string, string | null>();
  private reads = 0;
  private applied = 0;
  /** Grows with every change of the list (starts at 1: a cached link screened at 0 is re-screened). */
  generation = 1;

  constructor(
    @InjectRepository(BlocklistEntry) private readonly entries: Repository<BlocklistEntry>,
    private readonly bus: CacheBus,
    config: AppConfig,
  ) {
    if (config.BLOCKLIST_FILE) {
      const { entries, bad } = parseBlocklistFile(readFileSync(config.BLOCKLIST_FILE, 'utf8'));
      this.fileEntries = entries;
      if (bad.length)
        this.logger.warn(
          `BLOCKLIST_FILE: lines ${bad.join(', ')} are neither a domain nor keyword:<word>`,
        );
    }
    this.matcher = new BlocklistMatcher(this.fileEntries);
    bus.join('blocklist', this);
  }

  async onModuleInit(): Promise<void> {
    await this.reload().catch((err: Error) =>
      this.logger.error(`blocklist not loaded (file entries only): ${err.message}`),
    );
  }

  /** The entries of the file (they cannot be removed through the API). */
  get fromFile(): readonly string[] {
    return this.fileEntries;
  }

  /**
   * The entry that blocks `url`, or null. Answers are kept per URL until the list changes (a
   * match reads every spelling of the URL, some µs; QR scans and bio buttons ask on every visit).
   * `spellings`: gives the URL's destinationSpellings when the caller computes them anyway
   * (DestinationPolicy: once for the blocklist and the threat feeds); asked only on a miss.
   */
  match(url: string, spellings?: () => DestinationSpellings): string | null {
    if (this.matcher.empty) return null;
    let entry = this.answers.get(url);
    if (entry === undefined) {
      entry = this.matcher.match(url, spellings?.());
      if (this.answers.size >= MAX_ANSWERS) this.answers.clear();
      this.answers.set(url, entry);
    }
    return entry;
  }

  /** After an admin's change committed: every replica reloads. */
  async changed(): Promise<void> {
    await this.reload();
    await this.bus
      .publish('blocklist', ['*'])
      .catch((err: Error) =>
        this.logger.warn(
          `blocklist change not published (other replicas reload on reconnect): ${err.message}`,
        ),
      );
  }

  drop(): void {
    void this.reload().catch((err: Error) =>
      this.logger.warn(`blocklist reload failed: ${err.message}`),
    );
  }

  reset(): void {
    this.drop();
  }

  /** Reads the admins' entries; a read that an earlier-started one overtakes is not applied. */
  private async reload(): Promise<void> {
    const started = ++this.reads;
    const rows = await this.entries.find({ select: { entry: true } });
    if (started < this.applied) return;
    this.applied = started;
    this.matcher = new BlocklistMatcher([...this.fileEntries, ...rows.map((r) => r.entry)]);
    this.answers = new Map();
    this.generation += 1;
  }
}
