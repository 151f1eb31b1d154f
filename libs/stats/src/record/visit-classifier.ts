import { isbot } from 'isbot';
import Negotiator from 'negotiator';
import UAParser from 'ua-parser-js';

import { MemoMap } from '@app/common';

import { placeOfAddress } from './geo-city';

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
  /** `Paris, FR`, or `Unknown` (the offline city database) */
  city: string;
  /** `Île-de-France, FR`, or `Unknown` */
  region: string;
  /** utm_source of the visit's query, else of the link's parameters; '' when none */
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  /** scheme, host and path of the referrer (no query, no fragment); '' when none */
  referrerUrl: string;
  /** device vendor and model (`Apple iPhone`); '' when the user agent names none */
  deviceModel: string;
}

/** A link parameter (`parameters` of a link: name and value added to its destination). */
export interface VisitParameter {
  name: string;
  value: string;
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
  /** device vendor and model as ua-parser-js reports them (`Apple iPhone`), '' when unknown */
  model: string;
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

/** `Vendor Model` (`Apple iPhone`, `Samsung SM-G991B`), the model alone, or '' when none. */
export function deviceModelOf(vendor: string | undefined, model: string | undefined): string {
  const m = (model ?? '').trim();
  if (!m) return '';
  const v = (vendor ?? '').trim();
  return label(v && !m.toLowerCase().startsWith(v.toLowerCase()) ? `${v} ${m}` : m, '');
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
      model: deviceModelOf(ua.device.vendor, ua.device.model),
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

/**
 * Scheme, host and path of a Referer header (`https://news.example/a/b`): never its query,
 * fragment or credentials; other schemes keep their scheme and host only (`android-app://…`), so
 * a `data:` or `javascript:` referrer says nothing. '' when absent or not a URL. Cut to 100
 * characters like every label.
 */
export function referrerUrl(referer: string | undefined): string {
  if (!referer) return '';
  let u: URL;
  try {
    u = new URL(referer);
  } catch {
    return '';
  }
  const web = u.protocol === 'http:' || u.protocol === 'https:';
  if (!u.host) return '';
  return label(web ? `${u.protocol}//${u.host}${u.pathname}` : `${u.protocol}//${u.host}`, '');
}

/** The UTM labels of a visit: source, medium, campaign ('' each when none). */
export type Utm = readonly [source: string, medium: string, campaign: string];
const NO_UTM: Utm = Object.freeze(['', '', ''] as const);
const UTM_NAMES = ['utm_source', 'utm_medium', 'utm_campaign'] as const;
const queryUtms = new MemoMap<string, Utm>(10_000);
const parameterUtms = new WeakMap<readonly VisitParameter[], Utm>();

/** The utm_source / utm_medium / utm_campaign of a query string (without `?`), memoised. */
export function utmOfQuery(query: string | undefined): Utm {
  if (!query || !query.includes('utm_')) return NO_UTM;
  const key = query.length > MAX_HEADER_CHARS ? query.slice(0, MAX_HEADER_CHARS) : query;
  let utm = queryUtms.get(key);
  if (!utm) {
    const params = new URLSearchParams(key);
    utm = UTM_NAMES.map((n) => label(params.get(n) ?? '', '')) as unknown as Utm;
    queryUtms.set(key, utm);
  }
  return utm;
}

/** The UTM values among a link's parameters, memoised per parameter list. */
export function utmOfParameters(parameters: readonly VisitParameter[] | null | undefined): Utm {
  if (!parameters?.length) return NO_UTM;
  let utm = parameterUtms.get(parameters);
  if (!utm) {
    utm = UTM_NAMES.map((n) =>
      label(parameters.find((p) => p.name === n)?.value ?? '', ''),
    ) as unknown as Utm;
    parameterUtms.set(parameters, utm);
  }
  return utm;
}

/** Each UTM value from the visit's query, else from the link's parameters. */
export function utmOf(
  query: string | undefined,
  parameters: readonly VisitParameter[] | null | undefined,
): Utm {
  const fromQuery = utmOfQuery(query);
  if (fromQuery[0] && fromQuery[1] && fromQuery[2]) return fromQuery;
  const fromLink = utmOfParameters(parameters);
  if (fromLink === NO_UTM) return fromQuery;
  if (fromQuery === NO_UTM) return fromLink;
  return [fromQuery[0] || fromLink[0], fromQuery[1] || fromLink[1], fromQuery[2] || fromLink[2]];
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
const referrers = new MemoMap<
  string,
  { referrer: string; social: SocialNetwork | null; url: string }
>(10_000);

/** What the recorder knows of a visit beyond its address and headers. */
export interface VisitExtras {
  /** the request's query string (without `?`), for its UTM values */
  query?: string;
  /** the link's parameters (UTM values when the query has none) */
  parameters?: readonly VisitParameter[] | null;
}

/** Everything counted about a visit, derived from its request (the IP itself is not kept). */
export function dimensions(
  ip: string,
  userAgent: string | undefined,
  referer: string | undefined,
  acceptLanguage?: string,
  extras: VisitExtras = {},
): VisitDimensions {
  const agent = agentInfo(userAgent ?? '');
  const country = label(countryOf(ip), 'Unknown');
  const place = placeOfAddress(ip);
  if (referer && referer.length > MAX_HEADER_CHARS) referer = referer.slice(0, MAX_HEADER_CHARS);
  const from = referer ? referrers.get(referer) : undefined;
  let referrer = from?.referrer;
  let social = from?.social ?? null;
  let url = from?.url ?? '';
  if (referrer === undefined) {
    const host = referrerHost(referer);
    referrer = label(host, 'Direct');
    social = host === 'Direct' ? null : socialNetwork(host);
    url = referrerUrl(referer);
    if (referer) referrers.set(referer, { referrer, social, url });
  }
  const [utmSource, utmMedium, utmCampaign] = utmOf(extras.query, extras.parameters);
  return {
    country,
    referrer,
    browser: agent.browser,
    os: agent.os,
    social,
    device: agent.formFactor,
    language: languagesOf(acceptLanguage)[0] ?? 'Unknown',
    city: place.city,
    region: place.region,
    utmSource,
    utmMedium,
    utmCampaign,
    referrerUrl: url,
    deviceModel: agent.model,
  };
}
