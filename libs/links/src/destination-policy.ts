import { Injectable } from '@nestjs/common';

import { httpUrlProblem, intentFallbacks, InvalidFieldError, PublicUrls } from '@app/common';

import { Blocklist } from './blocklist';
import { canonicalHost, destinationSpellings, DestinationSpellings } from './blocklist-matcher';
import { LinkCacheAccess } from './link-cache-access';
import {
  lookupUrls,
  LookupUnavailable,
  SAFE_BROWSING_SOURCE,
  SafeBrowsing,
} from './threat-feeds/safe-browsing';
import { ThreatFeeds, ThreatFlag } from './threat-feeds/threat-feeds';

/**
 * The hosts a destination sends visitors to on the web: its own when it is http(s) (or an intent
 * with `scheme=http(s)`, which Chrome opens as that URL), and those of an intent's fallback URLs.
 */
function webHosts(url: string): string[] {
  const hosts: string[] = [];
  for (const u of [url, ...intentFallbacks(url)]) {
    const web = /^https?:/i.test(u) || (/^intent:/i.test(u) && /[#;]scheme=https?(?:;|$)/i.test(u));
    const host = web ? canonicalHost(u) : null;
    if (host !== null) hosts.push(host.replace(/^\[|\]$/g, ''));
  }
  return hosts;
}

/**
 * Where the service may send visitors. A destination on the service's own hosts (PUBLIC_URL's
 * host or any branded domain) would make a redirect loop or hide a chain of short links, and a
 * blocked one (Blocklist, whatever its spelling) is refused outright: 400 naming the field, as is
 * an http(s) URL whose host is no plain host name (httpUrlProblem). The one check of every
 * destination a client stores: link URLs and their targeting rules, deep links (an intent's
 * fallback URL included), expiration redirects, branded domains' redirectroot and redirect404,
 * splash, overlay and bio page URLs, and QR link data. What is blocked later is screened where it
 * is served (the api's screenLink and screenHost, the bio pages).
 */
@Injectable()
export class DestinationPolicy {
  private readonly publicHost: string;

  constructor(
    private readonly blocklist: Blocklist,
    private readonly cache: LinkCacheAccess,
    urls: PublicUrls,
    private readonly feeds: ThreatFeeds,
    private readonly lookup: SafeBrowsing,
  ) {
    this.publicHost = urls.host;
  }

  /**
   * 400 naming `field` when `url` is blocked or, unless `ownHostsAllowed`, one of ours;
   * `loopHost`: a branded domain being added or changed, whose own redirects may not point at it.
   */
  async check(
    field: string,
    url: string,
    options: { ownHostsAllowed?: boolean; loopHost?: string } = {},
  ): Promise<void> {
    await this.checkLocal([[field, url]], options);
    await this.checkOnline([[field, url]]);
  }

  /**
   * Every check but the online lookup, for each destination in order (the first failing one is
   * the 400). Each destination is read once (destinationSpellings), for the blocklist and the
   * threat feeds alike, and the feeds are asked about all of them in one round trip up front.
   */
  private async checkLocal(
    destinations: Array<[field: string, url: string]>,
    options: { ownHostsAllowed?: boolean; loopHost?: string },
  ): Promise<void> {
    const spelled: Array<DestinationSpellings | undefined> = [];
    const spellings = (i: number) => (spelled[i] ??= destinationSpellings(destinations[i][1]));
    const flags: Array<ThreatFlag | null> = this.feeds.enabled
      ? await this.feeds.matchEach(destinations.map((_, i) => spellings(i)))
      : [];
    for (let i = 0; i < destinations.length; i++) {
      const [field, url] = destinations[i];
      const problem = /^https?:/i.test(url) ? httpUrlProblem(url) : null;
      if (problem) throw new InvalidFieldError(field, problem);
      if (this.blocklist.match(url, () => spellings(i)))
        throw new InvalidFieldError(field, 'this destination is blocked');
      const flag = flags[i];
      if (flag) throw new InvalidFieldError(field, `flagged as ${flag.type} by ${flag.source}`);
      if (options.ownHostsAllowed) continue;
      const hosts = webHosts(url);
      if (options.loopHost !== undefined && hosts.includes(options.loopHost))
        throw new InvalidFieldError(field, 'must not point at this domain itself (a loop)');
      for (const host of hosts)
        if (host === this.publicHost || (await this.cache.isBrandedHost(host)))
          throw new InvalidFieldError(
            field,
            'must not point at this service (a short link to a short link makes a loop or hides a chain)',
          );
    }
  }

  /** `check` for each [field, url] pair, in order (an empty or absent URL is none). */
  async checkAll(
    destinations: Array<[field: string, url: string | null | undefined]>,
    options: { ownHostsAllowed?: boolean; deferLookup?: boolean } = {},
  ): Promise<void> {
    const named = destinations.filter((d): d is [string, string] => !!d[1]);
    if (named.length) await this.checkLocal(named, options);
    if (!this.lookup.enabled) return;
    if (options.deferLookup)
      await this.lookup.recordForRecheck(
        named.filter(([, url]) => lookupUrls(url).length).map(([, url]) => url),
        'deferred',
      );
    else await this.checkOnline(named);
  }

  /**
   * The online lookup (SafeBrowsing), after the local checks: one call for every http(s) URL the
   * destinations send visitors to (an intent's fallback URLs included); a flagged one is a 400
   * naming the first field that holds it. When the lookup cannot answer, creation goes on: the
   * destinations are recorded for the worker's re-check (logged). `deferLookup` (imports: one
   * call per row would hold a 500 000-row file up) records them for the re-check at once.
   */
  private async checkOnline(destinations: Array<[field: string, url: string]>): Promise<void> {
    if (!this.lookup.enabled || !destinations.length) return;
    const urls = destinations.map(([field, url]) => [field, lookupUrls(url)] as const);
    const all = urls.flatMap(([, list]) => list);
    if (!all.length) return;
    let flagged;
    try {
      flagged = await this.lookup.lookup(all);
    } catch (err) {
      if (!(err instanceof LookupUnavailable)) throw err;
      await this.lookup.recordForRecheck(
        destinations.filter((_, i) => urls[i][1].length).map(([, url]) => url),
        err.message,
      );
      return;
    }
    for (const [field, list] of urls)
      for (const url of list) {
        const flag = flagged.get(url);
        if (flag)
          throw new InvalidFieldError(field, `flagged as ${flag.type} by ${SAFE_BROWSING_SOURCE}`);
      }
  }
}
