import { IncomingMessage } from 'node:http';

import { Injectable } from '@nestjs/common';

import { appLinkProblem, AppPlatform, ClientAddress } from '@app/common';
import { AgentInfo, agentInfo, countryCodeOf, FormFactor, languagesOf, Platform } from '@app/stats';
import {
  CachedLink,
  headerSafeUrl,
  REDIRECT_CACHE_CONTROL,
  redirectHeaders,
  withParameters,
} from '@app/links';

import { Page, previewPage } from './pages';

const PLATFORM_INDEX: Record<Platform, number> = {
  iphone: 0,
  ipad: 1,
  android: 2,
  windows: 3,
  macos: 4,
  linux: 5,
  chromeos: 6,
  other: 7,
};
const FORM_FACTOR_INDEX: Record<FormFactor, number> = {
  mobile: 0,
  tablet: 1,
  desktop: 2,
  other: 3,
};
const PLATFORMS = Object.keys(PLATFORM_INDEX) as Platform[];
const FORM_FACTORS = Object.keys(FORM_FACTOR_INDEX) as FormFactor[];

/** Where a visitor may be sent, with the 302's headers built once. */
export interface Destination {
  url: string;
  /** `url` can take the visitor's query string (http(s)); app links cannot. */
  web: boolean;
  cacheControl: string;
  headers: string[];
}

/**
 * A link's options compiled once per cache entry: every destination with its headers, and the
 * rules as lookup tables, so that choosing costs a few array and map reads and allocates nothing
 * (the user agent, address and Accept-Language analyses it reads are memoised).
 */
export interface LinkRoute {
  /** [0] is the link's own URL (or its fallback while the target is broken); the others are targeting rules' links and deep links. */
  destinations: Destination[];
  deepApple: number;
  deepGoogle: number;
  /** `[platform × 4 + form factor]` → destination, or -1: the first device rule that matches. */
  device: Int16Array | null;
  country: Map<string, number> | null;
  language: Map<string, number> | null;
  forwardQuery: boolean;
  /** The page link-preview fetchers get (preview tags set). */
  preview: Page | null;
  clickLimit: number | null;
  /**
   * The click limit was found reached (set on the redirect path): every later request of this
   * cache entry gets the used-up answer without asking Redis.
   */
  usedUp: boolean;
  /** Whether choosing reads the user agent (deep links, device rules, preview, click limit). */
  needsAgent: boolean;
}

function compile(link: CachedLink): LinkRoute {
  const destinations: Destination[] = [];
  // each destination once (by URL; a map, not a search: 70 rules compared as strings pairwise
  // made a compile cost ~100 µs, paid again whenever the cache entry is re-read)
  const indexes = new Map<string, number>();
  const cacheControl = link.clickLimit != null ? 'no-store' : REDIRECT_CACHE_CONTROL;
  const indexOf = (url: string, web: boolean): number => {
    const target = web ? withParameters(url, link.parameters) : url;
    let index = indexes.get(target);
    if (index === undefined) {
      const headers = redirectHeaders(headerSafeUrl(target), cacheControl);
      index = destinations.push({ url: target, web, cacheControl, headers }) - 1;
      indexes.set(target, index);
    }
    return index;
  };
  // the link's own destination: its fallback while its target is broken (destination health)
  indexOf(link.fallbackUrl ?? link.url, true);

  let device: Int16Array | null = null;
  if (link.deviceTargets?.length) {
    const rules = link.deviceTargets.map((t) => ({ device: t.device, to: indexOf(t.link, true) }));
    device = new Int16Array(PLATFORMS.length * FORM_FACTORS.length).fill(-1);
    for (const p of PLATFORMS)
      for (const f of FORM_FACTORS) {
        const rule = rules.find((r) => r.device === p || r.device === f);
        if (rule) device[PLATFORM_INDEX[p] * FORM_FACTORS.length + FORM_FACTOR_INDEX[f]] = rule.to;
      }
  }
  const table = (rules: Array<{ key: string; link: string }> | null | undefined) => {
    if (!rules?.length) return null;
    const map = new Map<string, number>();
    for (const r of rules) if (!map.has(r.key)) map.set(r.key, indexOf(r.link, true));
    return map;
  };
  const country = table(link.geoTargets?.map((t) => ({ key: t.location, link: t.link })));
  const language = table(link.languageTargets?.map((t) => ({ key: t.language, link: t.link })));
  // a deep link stored before its scheme was refused (a browser's own: view-source:, chrome:, …)
  // is passed over: such visitors get the next rule
  const deep = (url: string | undefined, platform: AppPlatform) =>
    url && appLinkProblem(url, platform) === null ? indexOf(url, false) : -1;
  const deepApple = deep(link.deepLink?.apple, 'apple');
  const deepGoogle = deep(link.deepLink?.google, 'google');
  const preview = link.meta ? previewPage(link.meta, destinations[0].url) : null;
  const clickLimit = link.clickLimit ?? null;
  return {
    destinations,
    deepApple,
    deepGoogle,
    device,
    country,
    language,
    forwardQuery: link.forwardQuery === true,
    preview,
    clickLimit,
    usedUp: false,
    needsAgent: deepApple >= 0 || deepGoogle >= 0 || device !== null || preview !== null,
  };
}

/**
 * Link options on the redirect path (docs/api-conventions.md#link-options): compiles each cached
 * link's rules once (kept beside the cache entry, gone with it) and picks a visitor's destination
 * in the documented order: deep link, device, country, language, then the link's own URL.
 */
@Injectable()
export class LinkRouter {
  private readonly routes = new WeakMap<CachedLink, LinkRoute>();

  constructor(private readonly clients: ClientAddress) {}

  /** The compiled route of a cached link (compiled on first use of that cache entry). */
  route(link: CachedLink): LinkRoute {
    let route = this.routes.get(link);
    if (!route) {
      route = compile(link);
      this.routes.set(link, route);
    }
    return route;
  }

  /** The user agent analysis when the route needs it, else null. */
  agent(route: LinkRoute, req: IncomingMessage): AgentInfo | null {
    return route.needsAgent ? agentInfo(req.headers['user-agent'] ?? '') : null;
  }

  /** The visitor's destination. */
  choose(route: LinkRoute, req: IncomingMessage, agent: AgentInfo | null): Destination {
    const d = route.destinations;
    if (agent) {
      const platform = agent.platform;
      if (route.deepApple >= 0 && (platform === 'iphone' || platform === 'ipad'))
        return d[route.deepApple];
      if (route.deepGoogle >= 0 && platform === 'android') return d[route.deepGoogle];
      if (route.device) {
        const to =
          route.device[
            PLATFORM_INDEX[platform] * FORM_FACTORS.length + FORM_FACTOR_INDEX[agent.formFactor]
          ];
        if (to >= 0) return d[to];
      }
    }
    if (route.country) {
      const code = countryCodeOf(this.clients.of(req));
      const to = code === null ? undefined : route.country.get(code);
      if (to !== undefined) return d[to];
    }
    if (route.language) {
      for (const language of languagesOf(req.headers['accept-language'])) {
        const to = route.language.get(language);
        if (to !== undefined) return d[to];
      }
    }
    return d[0];
  }

  /**
   * The destination's URL with the visitor's query string added when the link forwards it (its
   * parameters replace those of the same name), or null when the prebuilt headers apply.
   */
  forwarded(route: LinkRoute, dest: Destination, req: IncomingMessage): string | null {
    if (!route.forwardQuery || !dest.web) return null;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    if (q < 0 || q === url.length - 1) return null;
    try {
      const target = new URL(dest.url);
      for (const [name, value] of new URLSearchParams(url.slice(q + 1)))
        target.searchParams.set(name, value);
      return target.href;
    } catch {
      return null;
    }
  }
}
