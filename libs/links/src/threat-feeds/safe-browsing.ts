import { createHash } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { intentFallbacks } from '@app/common';
import { AppConfig } from '@app/config';
import { RedisService } from '@app/redis';

import { ThreatFlag } from './threat-feeds';

/** What refusals and flags name as the lookup's source. */
export const SAFE_BROWSING_SOURCE = 'safe-browsing';
/** The most URLs one `threatMatches:find` call carries (the protocol's limit). */
export const LOOKUP_BATCH = 500;
/** A match without a readable cacheDuration is cached this long (seconds). */
const MATCH_SECONDS = 300;
/** URLs waiting for the worker's re-check at most (past it new ones are dropped, logged). */
const MAX_RECHECKS = 1_000_000;

const THREAT_TYPES = [
  'MALWARE',
  'SOCIAL_ENGINEERING',
  'UNWANTED_SOFTWARE',
  'POTENTIALLY_HARMFUL_APPLICATION',
];
const TYPE_NAMES: Record<string, string> = {
  MALWARE: 'malware',
  SOCIAL_ENGINEERING: 'phishing',
  UNWANTED_SOFTWARE: 'unwanted-software',
  POTENTIALLY_HARMFUL_APPLICATION: 'harmful-application',
};

/** The lookup could not answer (down, timed out, refused, unreadable answer). */
export class LookupUnavailable extends Error {}

/** The http(s) URLs a destination sends visitors to: itself, an intent link's fallback URLs. */
export function lookupUrls(destination: string): string[] {
  return [destination, ...intentFallbacks(destination)].filter((u) => /^https?:\/\//i.test(u));
}

/** `"300s"` / `"2.5s"` → whole seconds (at least 1), else null. */
function seconds(duration: unknown): number | null {
  const m = typeof duration === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(duration) : null;
  return m ? Math.max(1, Math.ceil(Number(m[1]))) : null;
}

interface LookupAnswer {
  matches?: Array<{ threatType?: string; threat?: { url?: string }; cacheDuration?: string }>;
}

/**
 * The online lookup: the Safe Browsing v4 `threatMatches:find` protocol at SAFE_BROWSING_URL
 * (`?key=` SAFE_BROWSING_KEY). Up to LOOKUP_BATCH URLs a call, within SAFE_BROWSING_TIMEOUT_MS.
 * Each URL's answer is cached in Redis (`sb:u:<sha1>`): a match for the answer's cacheDuration, a
 * clean one SAFE_BROWSING_CLEAN_SECONDS, so the api replicas and the worker share them. URLs the
 * lookup could not answer for are kept in a Redis set (`sb:recheck`) that the worker re-checks.
 */
@Injectable()
export class SafeBrowsing {
  private readonly logger = new Logger(SafeBrowsing.name);
  /** The endpoint with its key, or null: no lookup configured. */
  private readonly endpoint: string | null;
  private readonly timeoutMs: number;
  private readonly cleanSeconds: number;
  private warnedAt = 0;

  constructor(
    private readonly redis: RedisService,
    config: AppConfig,
  ) {
    const url = config.safeBrowsingUrl;
    this.endpoint = url
      ? config.SAFE_BROWSING_KEY
        ? `${url}${url.includes('?') ? '&' : '?'}key=${encodeURIComponent(config.SAFE_BROWSING_KEY)}`
        : url
      : null;
    this.timeoutMs = config.SAFE_BROWSING_TIMEOUT_MS;
    this.cleanSeconds = config.SAFE_BROWSING_CLEAN_SECONDS;
  }

  get enabled(): boolean {
    return this.endpoint !== null;
  }

  private cacheKey(url: string): string {
    return this.redis.key('sb', 'u', createHash('sha1').update(url).digest('base64url'));
  }

  get recheckKey(): string {
    return this.redis.key('sb', 'recheck');
  }

  /**
   * The flagged ones of `urls` (http(s) URLs), from the cache or the service. Throws
   * LookupUnavailable when the service cannot answer for some uncached URL (the answers it gave
   * before that are kept in the cache).
   */
  async lookup(urls: Iterable<string>): Promise<Map<string, ThreatFlag>> {
    const flagged = new Map<string, ThreatFlag>();
    if (!this.endpoint) return flagged;
    const unique = [...new Set(urls)];
    if (!unique.length) return flagged;
    const cached = await Promise.all(
      unique.map((u) => this.redis.client.get(this.cacheKey(u)).catch(() => null)),
    );
    const ask: string[] = [];
    unique.forEach((url, i) => {
      const hit = cached[i];
      if (hit === null) ask.push(url);
      else if (hit !== '') flagged.set(url, { source: SAFE_BROWSING_SOURCE, type: hit });
    });
    for (let i = 0; i < ask.length; i += LOOKUP_BATCH) {
      const batch = ask.slice(i, i + LOOKUP_BATCH);
      const answers = await this.call(batch);
      const writes: Array<Promise<unknown>> = [];
      for (const url of batch) {
        const match = answers.get(url);
        if (match) flagged.set(url, { source: SAFE_BROWSING_SOURCE, type: match.type });
        const ttl = match ? match.seconds : this.cleanSeconds;
        if (ttl > 0)
          writes.push(
            this.redis.client.set(this.cacheKey(url), match?.type ?? '', 'EX', ttl).catch(() => 0),
          );
      }
      await Promise.all(writes);
    }
    return flagged;
  }

  /** One `threatMatches:find` call: the matched URLs with their type and cache seconds. */
  private async call(urls: string[]): Promise<Map<string, { type: string; seconds: number }>> {
    const body = {
      client: { clientId: 'link-management', clientVersion: '1.0' },
      threatInfo: {
        threatTypes: THREAT_TYPES,
        platformTypes: ['ANY_PLATFORM'],
        threatEntryTypes: ['URL'],
        threatEntries: urls.map((url) => ({ url })),
      },
    };
    let answer: LookupAnswer;
    try {
      const res = await fetch(this.endpoint!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`HTTP ${res.status}`);
      }
      answer = (await res.json()) as LookupAnswer;
      if (!answer || typeof answer !== 'object') throw new Error('unreadable answer');
    } catch (err) {
      const e = err as Error;
      throw new LookupUnavailable(e.name === 'TimeoutError' ? 'timed out' : e.message);
    }
    const asked = new Set(urls);
    const out = new Map<string, { type: string; seconds: number }>();
    for (const m of Array.isArray(answer.matches) ? answer.matches : []) {
      const url = m?.threat?.url;
      if (typeof url !== 'string' || !asked.has(url) || out.has(url)) continue;
      const raw = String(m.threatType ?? 'THREAT_TYPE_UNSPECIFIED');
      out.set(url, {
        type:
          TYPE_NAMES[raw] ??
          raw
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '-')
            .slice(0, 40),
        seconds: seconds(m.cacheDuration) ?? MATCH_SECONDS,
      });
    }
    return out;
  }

  /**
   * Destinations (as clients sent them) the lookup did not answer for, for the worker to re-check
   * (LinkRescan.recheck); never fails the caller.
   */
  async recordForRecheck(urls: string[], why: string): Promise<void> {
    if (!urls.length || !this.endpoint) return;
    if (why !== 'deferred' && Date.now() - this.warnedAt > 60_000) {
      this.warnedAt = Date.now();
      this.logger.warn(
        `online lookup unavailable (${why}): destinations recorded to be re-checked`,
      );
    }
    try {
      if ((await this.redis.client.scard(this.recheckKey)) >= MAX_RECHECKS)
        this.logger.warn(`online lookup: ${MAX_RECHECKS} URLs wait for a re-check; not recorded`);
      else await this.redis.client.sadd(this.recheckKey, ...urls);
    } catch (err) {
      this.logger.warn(`online lookup: re-check not recorded: ${(err as Error).message}`);
    }
  }

  /** Takes up to `count` destinations waiting for a re-check (the worker). */
  async takeRechecks(count: number): Promise<string[]> {
    return (await this.redis.client.spop(this.recheckKey, count)) ?? [];
  }
}
