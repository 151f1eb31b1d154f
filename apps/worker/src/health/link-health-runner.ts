import { randomInt } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { formatDateTime, PublicUrls } from '@app/common';
import { AppConfig } from '@app/config';
import { WebhookEvent } from '@app/database';
import { LinkCacheAccess } from '@app/links';
import { RedisService } from '@app/redis';
import { targetHost, WebhookOutbox } from '@app/webhooks';

import { applyProbe } from './health-state';
import { ClaimedLink, HealthWrite, LinkHealthStore } from './link-health-store';
import { TargetProbe } from './target-probe';

/** Rows claimed per tick. */
export const HEALTH_BATCH = 100;
/** Visited links one statement of an enrolment pass reads (a pass walks them by id). */
export const ENROL_BATCH = 10_000;
/** Statements per enrolment pass at most (1 000 000 visited links). */
const ENROL_STATEMENTS = 100;
/** At most one enrolment pass of the links visited today or yesterday per this many seconds. */
export const ENROL_EVERY_SECONDS = 60;
/** At most one pass over 30 days of per-day statistics (links visited before the job ran) a day. */
export const ENROL_ALL_EVERY_SECONDS = 86_400;

/** What one tick did. */
export interface HealthTickResult {
  enrolled: number;
  probed: number;
  /** due, but their host was probed less than HEALTH_HOST_SECONDS ago: due again later */
  deferred: number;
  /** due, but not visited lately (or disabled): not probed */
  skipped: number;
  broken: number;
  recovered: number;
  drifted: number;
}

/**
 * Destination health (docs/link-health.md): each tick enrols the links visited lately (at most
 * once a minute), claims a batch of due links, keeps at most one probe per host per
 * HEALTH_HOST_SECONDS (a Redis key per host, every worker together; the others of that host are
 * due again later, spread), probes HEALTH_CONCURRENCY at a time, then writes the batch's states,
 * history and webhook events in one transaction and tells every api replica which links now
 * serve, or stop serving, their fallback.
 */
@Injectable()
export class LinkHealthRunner {
  private readonly logger = new Logger(LinkHealthRunner.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly store: LinkHealthStore,
    private readonly probe: TargetProbe,
    private readonly config: AppConfig,
    private readonly redis: RedisService,
    private readonly outbox: WebhookOutbox,
    private readonly cache: LinkCacheAccess,
    private readonly urls: PublicUrls,
  ) {}

  async tick(): Promise<HealthTickResult> {
    const enrolled = await this.enrolDue();
    const result = await this.probeDue();
    return { ...result, enrolled };
  }

  /**
   * The enrolment passes that are due (any worker: a Redis key each): the links visited since
   * yesterday once a minute (new visits are today's), the last 30 days once a day (what was
   * visited before the job first ran, or left over by a pass's limit).
   */
  async enrolDue(): Promise<number> {
    const due = (name: string, seconds: number) =>
      this.redis.client.set(this.redis.key('health', name), '1', 'EX', seconds, 'NX');
    let enrolled = 0;
    if ((await due('enrol', ENROL_EVERY_SECONDS)) === 'OK') enrolled += await this.enrol(1);
    if ((await due('enrol-all', ENROL_ALL_EVERY_SECONDS)) === 'OK') enrolled += await this.enrol();
    return enrolled;
  }

  /**
   * Enrols the links visited in the last `days` days (30 by default) that are not probed yet,
   * their first probes spread over HEALTH_CHECK_SECONDS.
   */
  async enrol(days?: number): Promise<number> {
    let total = 0;
    let after: number | null = 0;
    for (let i = 0; i < ENROL_STATEMENTS && after !== null; i++) {
      const step = await this.store.enrol(
        ENROL_BATCH,
        this.config.HEALTH_CHECK_SECONDS,
        days,
        after,
      );
      total += step.added;
      after = step.next;
    }
    return total;
  }

  /** Claims, probes and writes one batch of due links. */
  async probeDue(): Promise<Omit<HealthTickResult, 'enrolled'>> {
    const lease = randomInt(1, 2 ** 31 - 1);
    // a claimed row is due again after its probes' worst case if this worker dies
    const leaseSeconds = Math.ceil(
      (this.config.HEALTH_TIMEOUT_MS / 1000) *
        2 *
        Math.ceil(HEALTH_BATCH / this.config.HEALTH_CONCURRENCY) +
        60,
    );
    const claimed = await this.store.claim(HEALTH_BATCH, lease, leaseSeconds);
    const out = { probed: 0, deferred: 0, skipped: 0, broken: 0, recovered: 0, drifted: 0 };
    if (!claimed.length) return out;

    const release: Array<{ linkId: number; lease: number; nextAt: Date }> = [];
    const toProbe: ClaimedLink[] = [];
    const byHost = new Map<string, ClaimedLink[]>();
    for (const link of claimed) {
      if (!link.probe) {
        release.push({ linkId: link.linkId, lease, nextAt: this.nextCheck() });
        out.skipped++;
        continue;
      }
      const host = hostOf(link.url);
      const group = byHost.get(host);
      if (group) group.push(link);
      else byHost.set(host, [link]);
    }
    const hostMs = this.config.HEALTH_HOST_SECONDS * 1000;
    const hosts = [...byHost.keys()];
    const slots = await Promise.all(
      hosts.map((host) =>
        this.redis.client.set(this.redis.key('health', 'host', host), '1', 'PX', hostMs, 'NX'),
      ),
    );
    hosts.forEach((host, i) => {
      const group = byHost.get(host) as ClaimedLink[];
      const first = slots[i] === 'OK' ? 1 : 0;
      if (first) toProbe.push(group[0]);
      // the others of this host: one host interval apart each, with a random share of one
      for (let k = first; k < group.length; k++) {
        const waits = k - first + 1;
        release.push({
          linkId: group[k].linkId,
          lease,
          nextAt: new Date(Date.now() + hostMs * waits + Math.floor(Math.random() * hostMs)),
        });
        out.deferred++;
      }
    });
    await this.store.release(release);

    const results = await mapLimit(toProbe, this.config.HEALTH_CONCURRENCY, (link) =>
      this.probe.probe(link.url),
    );
    const writes: HealthWrite[] = [];
    const events: Array<{ userId: number; event: WebhookEvent; data: object }> = [];
    const switched = new Map<number, string>();
    toProbe.forEach((link, i) => {
      const probe = results[i];
      const now = new Date();
      const after = applyProbe(link, probe, this.config.HEALTH_FAIL_THRESHOLD, now);
      writes.push({
        linkId: link.linkId,
        lease,
        url: link.url,
        status: after.status,
        fails: after.fails,
        oks: after.oks,
        since: after.since,
        checked: now,
        httpStatus: probe.httpstatus,
        error: probe.error,
        history: after.history,
        domain: after.domain,
        driftedTo: after.driftedTo,
        nextAt: this.nextCheck(),
      });
      // what the read model serves changes when the broken status is entered or left (a new
      // URL's state restarting included)
      const wasBroken = link.status === 'broken' && link.stateUrl === link.url;
      if (wasBroken !== (after.status === 'broken')) switched.set(link.linkId, link.alias);
      const base = {
        id: link.linkId,
        alias: link.alias,
        shorturl: this.urls.short(link.alias, link.shortDomain),
        longurl: link.url,
      };
      for (const e of after.events) {
        if (e.event === 'link.drifted') {
          out.drifted++;
          events.push({
            userId: link.userId,
            event: e.event,
            data: { ...base, domain: e.from, finaldomain: e.to, finalurl: probe.finalUrl },
          });
        } else {
          if (e.event === 'link.broken') out.broken++;
          else out.recovered++;
          events.push({
            userId: link.userId,
            event: e.event,
            data: {
              ...base,
              fallbackurl: link.fallbackUrl,
              httpstatus: probe.httpstatus,
              error: probe.error,
              since: formatDateTime(after.since),
            },
          });
        }
      }
    });
    const written = await this.db.transaction(async (em) => {
      const ids = await this.store.write(em, writes);
      await this.outbox.recordForOwners(
        em,
        events.filter((e) => ids.has((e.data as { id: number }).id)),
      );
      return ids;
    });
    out.probed = written.size;
    const aliases = [...switched].filter(([id]) => written.has(id)).map(([, alias]) => alias);
    if (aliases.length) await this.cache.forgetAliases(aliases);
    if (out.broken || out.recovered || out.drifted)
      this.logger.log(
        `probed ${out.probed} links: ${out.broken} broken, ${out.recovered} recovered, ${out.drifted} drifted`,
      );
    return out;
  }

  /** When a probed link is due again: HEALTH_CHECK_SECONDS, ±10 % at random (spread). */
  private nextCheck(): Date {
    const ms = this.config.HEALTH_CHECK_SECONDS * 1000;
    return new Date(Date.now() + ms * (0.9 + Math.random() * 0.2));
  }
}

/** The host a URL's probe counts against (its host name as the allow list spells it). */
function hostOf(url: string): string {
  try {
    return targetHost(new URL(url));
  } catch {
    return '';
  }
}

/** `fn` over `items`, at most `limit` at a time, results in the items' order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  });
  await Promise.all(lanes);
  return results;
}
