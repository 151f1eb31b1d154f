import { AppConfig } from '@app/config';
import { isCluster } from '@app/redis';
import {
  FoldResult,
  StatsFold,
  StatsKeys,
  StatsReader,
  VisitInput,
  VisitRecorder,
} from '@app/stats';

import { TestApp } from './app';

/** A desktop Chrome user agent: counted. */
export const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
/** Facebook's link-preview fetcher: served, never counted. */
export const PREVIEW_UA =
  'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';

/** The statistics of a link nobody has visited yet. */
export const EMPTY_STATS = {
  clicks: 0,
  uniqueClicks: 0,
  topCountries: {},
  topReferrers: {},
  topBrowsers: {},
  topOs: {},
  topCities: {},
  topRegions: {},
  topUtmSources: {},
  topUtmMediums: {},
  topUtmCampaigns: {},
  topReferrerUrls: {},
  topDeviceModels: {},
  socialCount: { network01: 0, network02: 0, network03: 0 },
};

/** Folds the Redis visit counters into Postgres now (what the worker's scheduled job does). */
export function foldStats(t: TestApp): Promise<FoldResult> {
  return statsFold(t).fold();
}

/** The fold on the test app's connections and settings (read replicas' grace), for crash-step tests. */
export function statsFold(t: TestApp): StatsFold {
  return new StatsFold(t.redis, t.db, t.app.get(AppConfig));
}

/** The statistics keys of the test app (partitioned as its config says). */
export function statsKeys(t: TestApp): StatsKeys {
  return new StatsKeys(t.redis, t.app.get(AppConfig).STATS_PARTITIONS);
}

/** The batch ids claimed and not yet cleaned up, in every partition. */
export async function inflightBatches(t: TestApp): Promise<string[]> {
  const keys = statsKeys(t);
  const sets = await Promise.all(
    [keys.legacy, ...keys.partitions].map((p) => t.redis.client.smembers(p.inflight)),
  );
  return sets.flat();
}

/** The link ids with pending counters, in every partition. */
export async function dirtyLinks(t: TestApp): Promise<string[]> {
  const keys = statsKeys(t);
  const sets = await Promise.all(
    [keys.legacy, ...keys.partitions].map((p) => t.redis.client.smembers(p.dirty)),
  );
  return sets.flat();
}

/** Every key matching `pattern` (on a cluster: on each primary). */
export async function redisKeys(t: TestApp, pattern: string): Promise<string[]> {
  const client = t.redis.client;
  const nodes = isCluster(client) ? client.nodes('master') : [client];
  return (await Promise.all(nodes.map((n) => n.keys(pattern)))).flat();
}

/** Records a visit and waits until Redis has it (the redirector fires and forgets instead). */
export function recordVisit(
  t: TestApp,
  visit: Partial<VisitInput> & Pick<VisitInput, 'linkId' | 'userId'>,
): Promise<boolean> {
  return t.app.get(VisitRecorder).recordNow({
    method: 'GET',
    ip: '8.8.8.8',
    userAgent: BROWSER_UA,
    referer: undefined,
    ...visit,
  });
}

export function readStats(t: TestApp, linkId: number) {
  return t.app.get(StatsReader).forLink(linkId);
}

/** Polls `check` until it returns true (or fails after `ms`). */
export async function eventually(
  check: () => Promise<boolean>,
  ms = 10_000,
  every = 100,
): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
