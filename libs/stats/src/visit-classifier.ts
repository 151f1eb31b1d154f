import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import UAParser from 'ua-parser-js';

/** Social networks counted in `socialCount`, by referrer host (the documented neutral keys). */
const SOCIAL: Array<[network: 'network01' | 'network02' | 'network03', hosts: string[]]> = [
  ['network01', ['facebook.com', 'fb.com', 'fb.me', 'messenger.com']],
  ['network02', ['twitter.com', 'x.com', 't.co']],
  ['network03', ['linkedin.com', 'lnkd.in']],
];

export type SocialNetwork = 'network01' | 'network02' | 'network03';

export interface VisitDimensions {
  country: string;
  referrer: string;
  browser: string;
  os: string;
  social: SocialNetwork | null;
}

interface AgentInfo {
  bot: boolean;
  browser: string;
  os: string;
}

/**
 * User-agent analysis, memoised: parsing costs ~25 µs, and real traffic repeats a small set of
 * agents, so the hot path pays a map lookup instead.
 */
const agents = new LRUCache<string, AgentInfo>({ max: 20_000 });

function agentInfo(userAgent: string): AgentInfo {
  let info = agents.get(userAgent);
  if (!info) {
    const ua = new UAParser(userAgent).getResult();
    info = {
      bot: isbot(userAgent),
      browser: label(ua.browser.name, 'Other'),
      os: label(ua.os.name, 'Other'),
    };
    agents.set(userAgent, info);
  }
  return info;
}

/**
 * Whether a visit is counted: GET/POST from something that is not a bot or a link-preview
 * fetcher (isbot's list), with a user agent. HEAD and other methods are served, not counted.
 */
export function isCountable(method: string, userAgent: string | undefined): boolean {
  if (method !== 'GET' && method !== 'POST') return false;
  if (!userAgent || !userAgent.trim()) return false;
  return !agentInfo(userAgent).bot;
}

/** Host of a Referer header (lower-case, no `www.`), or `Direct` when absent or unparsable. */
export function referrerHost(referer: string | undefined): string {
  if (!referer) return 'Direct';
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return host ? host.replace(/^www\./, '') : 'Direct';
  } catch {
    return 'Direct';
  }
}

/** `network01`…`network03` when the referrer host is (a subdomain of) Facebook / X / LinkedIn. */
export function socialNetwork(host: string): SocialNetwork | null {
  for (const [network, hosts] of SOCIAL) {
    if (hosts.some((h) => host === h || host.endsWith(`.${h}`))) return network;
  }
  return null;
}

/** Label safe to use inside a counter field name: no `|`, at most 100 characters. */
export function label(value: string | undefined, fallback: string): string {
  const clean = (value ?? '')
    .replace(/[|\r\n\t]/g, ' ')
    .trim()
    .slice(0, 100);
  return clean || fallback;
}

type GeoLookup = (ip: string) => { country?: string } | null;
let geo: GeoLookup | null | undefined;
let regionNames: Intl.DisplayNames | undefined;
const countryNames = new Map<string, string>();

/**
 * Country name of an IP from the offline GeoIP database shipped with geoip-country (loaded on
 * first use: ~15 MB; countries only, so about half the lookup cost and a tenth of the memory of
 * geoip-lite's city database). Private, loopback and unknown addresses, or a failed load: `Unknown`.
 */
export function countryOf(ip: string): string {
  if (geo === undefined) {
    try {
      geo = (require('geoip-country') as { lookup: GeoLookup }).lookup;
      regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
    } catch {
      geo = null;
    }
  }
  if (!geo) return 'Unknown';
  const plain = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  const code = geo(plain)?.country;
  if (!code) return 'Unknown';
  let name = countryNames.get(code);
  if (name === undefined) {
    try {
      name = regionNames?.of(code) ?? code;
    } catch {
      name = code;
    }
    countryNames.set(code, name);
  }
  return name;
}

/**
 * Referrers memoised like user agents: a shared link's referrer comes back again and again, and
 * a map hit costs less than a URL parse. (Addresses are memoised per visitor by the recorder.)
 */
const referrers = new LRUCache<string, { referrer: string; social: SocialNetwork | null }>({
  max: 10_000,
});

/** Everything counted about a visit, derived from its request (the IP itself is not kept). */
export function dimensions(
  ip: string,
  userAgent: string | undefined,
  referer: string | undefined,
): VisitDimensions {
  const agent = agentInfo(userAgent ?? '');
  const country = label(countryOf(ip), 'Unknown');
  const from = referer ? referrers.get(referer) : undefined;
  let referrer = from?.referrer;
  let social = from?.social ?? null;
  if (referrer === undefined) {
    const host = referrerHost(referer);
    referrer = label(host, 'Direct');
    social = host === 'Direct' ? null : socialNetwork(host);
    if (referer) referrers.set(referer, { referrer, social });
  }
  return { country, referrer, browser: agent.browser, os: agent.os, social };
}
