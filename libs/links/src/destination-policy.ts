import { Injectable } from '@nestjs/common';

import { hostOfUrl, InvalidFieldError } from '@app/common';
import { AppConfig } from '@app/config';

import { Blocklist } from './blocklist';
import { LinkCacheAccess } from './link-cache-access';

/** Host of an http(s) URL (lower case, no trailing dot), or null for other schemes. */
function webHost(url: string): string | null {
  if (!/^https?:/i.test(url)) return null;
  try {
    return hostOfUrl(url);
  } catch {
    return null;
  }
}

/**
 * Where the service may send visitors. A destination on the service's own hosts (PUBLIC_URL's
 * host or any branded domain) would make a redirect loop or hide a chain of short links, and a
 * blocked one (Blocklist) is refused outright: 400 naming the field. Used for link URLs and
 * their targeting rules, deep links, expiration redirects, branded domains' redirectroot and
 * redirect404, and QR link data.
 */
@Injectable()
export class DestinationPolicy {
  private readonly publicHost: string;

  constructor(
    private readonly blocklist: Blocklist,
    private readonly cache: LinkCacheAccess,
    config: AppConfig,
  ) {
    this.publicHost = hostOfUrl(config.publicUrl);
  }

  /** 400 naming `field` when `url` is blocked or, unless `ownHostsAllowed`, one of ours. */
  async check(
    field: string,
    url: string,
    options: { ownHostsAllowed?: boolean } = {},
  ): Promise<void> {
    if (this.blocklist.match(url))
      throw new InvalidFieldError(field, 'this destination is blocked');
    if (options.ownHostsAllowed) return;
    const host = webHost(url);
    if (host === null) return;
    if (host === this.publicHost || (await this.cache.isBrandedHost(host)))
      throw new InvalidFieldError(
        field,
        'must not point at this service (a short link to a short link makes a loop or hides a chain)',
      );
  }

  /** `check` for each [field, url] pair, in order. */
  async checkAll(
    destinations: Array<[field: string, url: string | null | undefined]>,
  ): Promise<void> {
    for (const [field, url] of destinations) if (url) await this.check(field, url);
  }
}
