import { isbot } from 'isbot';
import Negotiator from 'negotiator';
import UAParser from 'ua-parser-js';

import { MemoMap } from '@app/common';

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
  /** the kind of device (`formFactor` of the user agent) */
  device: FormFactor;
  /** the visitor's first Accept-Language language (ISO 639-1), or `Unknown` */
  language: string;
}

/** The platform of a visitor's device, as device targeting names it. */
export type Platform =
  'iphone' | 'ipad' | 'android' | 'windows' | 'macos' | 'linux' | 'chromeos' | 'other';
/** The kind of device (statistics' `topDevices`, device targeting's mobile / tablet / desktop). */
export type FormFactor = 'mobile' | 'tablet' | 'desktop' | 'other';

/** What the user agent says about a visitor. */
export interface AgentInfo {
  /** A bot or link-preview fetcher (isbot's list). */
  bot: boolean;
  browser: string;
  os: string;
  platform: Platform;
  formFactor: FormFactor;
}

/**
 * Headers are cut to this many characters before they are parsed or memoised: real user agents
 * and referrers are far shorter, and it bounds the memory of the memos below (entries × this).
 */
export const MAX_HEADER_CHARS = 512;

/**
 * User-agent analysis, memoised: parsing costs ~25 µs, and real traffic repeats a small set of
 * agents, so the hot path pays a map lookup instead.
 */
const agents = new MemoMap<string, AgentInfo>(20_000);

const LINUX =
  /linux|ubuntu|debian|fedora|mint|arch|centos|red ?hat|gentoo|suse|slackware|mandriva/i;

function platformOf(ua: UAParser.IResult): Platform {
  const os = ua.os.name ?? '';
  if (os === 'iOS') return ua.device.model === 'iPad' ? 'ipad' : 'iphone';
  if (os === 'Android') return 'android';
  if (os === 'Windows') return 'windows';
  if (os === 'Mac OS') return 'macos';
  if (/chrom(e|ium) ?os/i.test(os)) return 'chromeos';
  return LINUX.test(os) ? 'linux' : 'other';
}

function formFactorOf(ua: UAParser.IResult, platform: Platform): FormFactor {
  const type = ua.device.type;
  if (type === 'mobile' || platform === 'iphone') return 'mobile';
  if (type === 'tablet' || platform === 'ipad') return 'tablet';
  return type === undefined ? 'desktop' : 'other';
}

/** The memoised analysis of a user agent (bot, browser, OS, platform, form factor). */
export function agentInfo(userAgent: string): AgentInfo {
  const key =
    userAgent.length > MAX_HEADER_CHARS ? userAgent.slice(0, MAX_HEADER_CHARS) : userAgent;
  let info = agents.get(key);
  if (!info) {
    const ua = new UAParser(key).getResult();
    const platform = platformOf(ua);
    info = {
      bot: isbot(key),
      browser: label(ua.browser.name, 'Other'),
      os: label(ua.os.name, 'Other'),
      platform,
      formFactor: formFactorOf(ua, platform),
    };
    agents.set(key, info);
  }
  return info;
}

const NO_LANGUAGES: readonly string[] = Object.freeze([]);
const languageLists = new MemoMap<string, readonly string[]>(5_000);

/**
 * The languages of an `Accept-Language` header as ISO 639-1 codes (lower case, primary subtag
 * only), in the visitor's order of preference (q-values; `*` and malformed entries left out,
 * each code once), memoised. Parsed by `negotiator` (the parser Express uses).
 */
export function languagesOf(header: string | undefined): readonly string[] {
  if (!header) return NO_LANGUAGES;
  const key = header.length > MAX_HEADER_CHARS ? header.slice(0, MAX_HEADER_CHARS) : header;
  let list = languageLists.get(key);
  if (!list) {
    const codes: string[] = [];
    for (const tag of new Negotiator({ headers: { 'accept-language': key } }).languages()) {
      const primary = tag.split('-', 1)[0].toLowerCase();
      if (/^[a-z]{2}$/.test(primary) && !codes.includes(primary)) codes.push(primary);
    }
    list = codes.length ? Object.freeze(codes) : NO_LANGUAGES;
    languageLists.set(key, list);
  }
  return list;
}

/**
 * Whether a visit is counted: GET/POST from something that is not a bot or a link-preview
 * fetcher (isbot's list), with a user agent. HEAD and other methods are served, not counted.
 */
export function isCountable(method: string, userAgent: string | undefined): boolean {
  return countableMethod(method) && countableAgent(userAgent);
}

/** GET and POST (a password form) visits count; HEAD and the rest do not. */
export function countableMethod(method: string): boolean {
  return method === 'GET' || method === 'POST';
}

/** A user agent whose visits count: present, not blank, not a bot's. */
export function countableAgent(userAgent: string | undefined): boolean {
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
/** Addresses already looked up ('' = no country): a returning visitor costs a map lookup. */
const countryCodes = new MemoMap<string, string>(50_000);
let geo: GeoLookup | null | undefined;
let regionNames: Intl.DisplayNames | undefined;
const countryNames = new Map<string, string>();

/**
 * ISO 3166-1 alpha-2 code of an IP's country from the offline GeoIP database shipped with
 * geoip-country (loaded on first use: ~15 MB; countries only, so about half the lookup cost and a
 * tenth of the memory of geoip-lite's city database). Null for private, loopback and unknown
 * addresses, or when the database cannot be loaded.
 */
export function countryCodeOf(ip: string): string | null {
  if (geo === undefined) {
    try {
      geo = (require('geoip-country') as { lookup: GeoLookup }).lookup;
      regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
    } catch {
      geo = null;
    }
  }
  if (!geo) return null;
  let code = countryCodes.get(ip);
  if (code === undefined) {
    const plain = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
    code = geo(plain)?.country ?? '';
    countryCodes.set(ip, code);
  }
  return code || null;
}

/** The English name of an IP's country (statistics' label), or `Unknown`. */
export function countryOf(ip: string): string {
  const code = countryCodeOf(ip);
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
const referrers = new MemoMap<string, { referrer: string; social: SocialNetwork | null }>(10_000);

/** Everything counted about a visit, derived from its request (the IP itself is not kept). */
export function dimensions(
  ip: string,
  userAgent: string | undefined,
  referer: string | undefined,
  acceptLanguage?: string,
): VisitDimensions {
  const agent = agentInfo(userAgent ?? '');
  const country = label(countryOf(ip), 'Unknown');
  if (referer && referer.length > MAX_HEADER_CHARS) referer = referer.slice(0, MAX_HEADER_CHARS);
  const from = referer ? referrers.get(referer) : undefined;
  let referrer = from?.referrer;
  let social = from?.social ?? null;
  if (referrer === undefined) {
    const host = referrerHost(referer);
    referrer = label(host, 'Direct');
    social = host === 'Direct' ? null : socialNetwork(host);
    if (referer) referrers.set(referer, { referrer, social });
  }
  return {
    country,
    referrer,
    browser: agent.browser,
    os: agent.os,
    social,
    device: agent.formFactor,
    language: languagesOf(acceptLanguage)[0] ?? 'Unknown',
  };
}
