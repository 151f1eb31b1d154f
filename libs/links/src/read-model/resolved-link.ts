import {
  DeepLink,
  DeviceTarget,
  GeoTarget,
  LanguageTarget,
  LinkKind,
  LinkParameter,
  LinkType,
} from '@app/database';

export interface PixelTag {
  type: string;
  tag: string;
}

export interface SplashContent {
  title: string;
  message: string;
  imageUrl: string;
  /** Shown beside the image ('' for none; absent in entries cached before it existed). */
  link?: string;
  countdown: number;
  buttonText: string;
}

/** A button of a bio page as served: `n` is its position in the page's stored list (`?go=<n>`). */
export interface BioButton {
  n: number;
  title: string;
  url: string;
}

/** What a bio page shows (private and deleted short links already left out). */
export interface BioContent {
  name: string;
  description: string;
  avatar: string;
  theme: string;
  links: BioButton[];
  socials: Record<string, string>;
}

export interface OverlayContent {
  type: string;
  message: string;
  buttonText: string;
  buttonLink: string;
  bgColor: string;
  textColor: string;
  buttonColor: string;
  position: string;
}

/**
 * One field of the read model (ResolvedLink): `select` is its item in the select list of
 * RESOLVE_LINK_SQL (`l` is the link; its splash page, overlay and bio page are joined as `s`, `o`
 * and `b`), `from` reads its value from the row (its parameter declares the columns it reads, with
 * their types), and `absent` is what a cached entry without the field gets (one stored in Redis
 * before the field existed); left out for the fields every entry has.
 */
interface LinkField<Row, T> {
  select: string;
  from: (row: Row) => T;
  absent?: NoInfer<T> & (null | false | never[]);
}

const field = <Row, T>(spec: LinkField<Row, T>): LinkField<Row, T> => spec;

/**
 * Everything the redirector needs to answer a short code without another lookup, declared once:
 * ResolvedLink, the row of RESOLVE_LINK_SQL, `fromRow` and `toCached` are derived from this list,
 * in its order. This is what the caches hold (Redis as JSON): no password hash, no statistics.
 * A new link option is one entry here (see docs/architecture.md, "Recipe: a link option").
 */
const LINK_FIELDS = {
  id: field({ select: 'l.id', from: (r: { id: number }) => r.id }),
  userId: field({ select: 'l.user_id', from: (r: { user_id: number }) => r.user_id }),
  kind: field({ select: 'l.kind', from: (r: { kind: LinkKind }) => r.kind }),
  alias: field({ select: 'l.alias', from: (r: { alias: string }) => r.alias }),
  url: field({ select: 'l.url', from: (r: { url: string }) => r.url }),
  /** Branded domain the link lives on; null = the PUBLIC_URL host. */
  domainId: field({
    select: 'l.domain_id',
    from: (r: { domain_id: number | null }) => r.domain_id,
    absent: null,
  }),
  type: field({ select: 'l.type', from: (r: { type: LinkType }) => r.type }),
  title: field({ select: 'l.title', from: (r: { title: string }) => r.title }),
  /** Epoch milliseconds; null = never expires. */
  expiresAt: field({
    select: 'l.expires_at',
    from: (r: { expires_at: Date | null }) =>
      r.expires_at ? new Date(r.expires_at).getTime() : null,
    absent: null,
  }),
  /** The link has a password: the form first. */
  protected: field({
    select: '(l.password_hash IS NOT NULL) AS protected',
    from: (r: { protected: boolean }) => r.protected,
    absent: false,
  }),
  pixels: field({
    select: `COALESCE((SELECT json_agg(json_build_object('type', p.type, 'tag', p.tag) ORDER BY p.id)
                   FROM link_pixels lp JOIN pixels p ON p.id = lp.pixel_id WHERE lp.link_id = l.id), '[]'::json) AS pixels`,
    from: (r: { pixels: PixelTag[] | null }) => r.pixels ?? [],
    absent: [],
  }),
  splash: field({
    select: `CASE WHEN s.id IS NULL THEN NULL ELSE json_build_object(
           'title', s.title, 'message', s.message, 'imageUrl', s.image_url, 'link', s.link, 'countdown', s.countdown,
           'buttonText', s.button_text) END AS splash`,
    from: (r: { splash: SplashContent | null }) => r.splash,
    absent: null,
  }),
  overlay: field({
    select: `CASE WHEN o.id IS NULL THEN NULL ELSE json_build_object(
           'type', o.type, 'message', o.message, 'buttonText', o.button_text, 'buttonLink', o.button_link,
           'bgColor', o.bg_color, 'textColor', o.text_color, 'buttonColor', o.button_color, 'position', o.position) END AS overlay`,
    from: (r: { overlay: OverlayContent | null }) => r.overlay,
    absent: null,
  }),
  /** A bio page's content (kind `bio`), else null. */
  bio: field({
    select: `CASE WHEN b.link_id IS NULL THEN NULL ELSE json_build_object(
           'name', b.name, 'description', l.description, 'avatar', b.avatar, 'theme', b.theme, 'socials', b.socials,
           'links', COALESCE((SELECT json_agg(json_build_object('n', e.n - 1, 'title', e.item->>'title', 'url', e.item->>'url') ORDER BY e.n)
                              FROM jsonb_array_elements(b.links) WITH ORDINALITY AS e(item, n)
                              WHERE NOT (e.item ? 'link') OR EXISTS (
                                SELECT 1 FROM links sl WHERE sl.id = (e.item->>'link')::int AND sl.user_id = l.user_id
                                  AND sl.status = 'public')), '[]'::json)) END AS bio`,
    from: (r: { bio: BioContent | null }) => r.bio,
    absent: null,
  }),
  // link options (null / false when unset)
  geoTargets: field({
    select: 'l.geo_targets',
    from: (r: { geo_targets: GeoTarget[] | null }) => r.geo_targets,
    absent: null,
  }),
  deviceTargets: field({
    select: 'l.device_targets',
    from: (r: { device_targets: DeviceTarget[] | null }) => r.device_targets,
    absent: null,
  }),
  languageTargets: field({
    select: 'l.language_targets',
    from: (r: { language_targets: LanguageTarget[] | null }) => r.language_targets,
    absent: null,
  }),
  deepLink: field({
    select: 'l.deep_link',
    from: (r: { deep_link: DeepLink | null }) => r.deep_link,
    absent: null,
  }),
  parameters: field({
    select: 'l.parameters',
    from: (r: { parameters: LinkParameter[] | null }) => r.parameters,
    absent: null,
  }),
  forwardQuery: field({
    select: 'l.forward_query',
    from: (r: { forward_query: boolean }) => r.forward_query,
    absent: false,
  }),
  /** What link-preview fetchers are shown (any of the three set), else null. */
  meta: field({
    select: 'l.meta_title, l.meta_description, l.meta_image',
    from: (r: {
      meta_title: string | null;
      meta_description: string | null;
      meta_image: string | null;
    }): LinkMeta | null =>
      r.meta_title || r.meta_description || r.meta_image
        ? { title: r.meta_title, description: r.meta_description, image: r.meta_image }
        : null,
    absent: null,
  }),
  clickLimit: field({
    select: 'l.click_limit',
    from: (r: { click_limit: number | null }) => r.click_limit,
    absent: null,
  }),
  expirationRedirect: field({
    select: 'l.expiration_redirect',
    from: (r: { expiration_redirect: string | null }) => r.expiration_redirect,
    absent: null,
  }),
  /**
   * The link's `fallbackurl` while its target is broken (destination health: the worker's
   * `link_health` row for its current URL says so), served instead of `url`; else null.
   */
  fallbackUrl: field({
    select: `(SELECT l.fallback_url FROM link_health h
               WHERE h.link_id = l.id AND h.status = 'broken' AND h.url = l.url) AS serving_fallback`,
    from: (r: { serving_fallback: string | null }) => r.serving_fallback,
    absent: null,
  }),
  /** An admin disabled the link: the 451 page. */
  disabled: field({
    select: '(l.disabled_at IS NOT NULL) AS disabled',
    from: (r: { disabled: boolean }) => r.disabled,
    absent: false,
  }),
  /** The re-scan flagged one of its targets and no admin allowed it: the 451 warning page. */
  flagged: field({
    select: `EXISTS (SELECT 1 FROM link_flags f WHERE f.link_id = l.id AND f.allowed_at IS NULL) AS flagged`,
    from: (r: { flagged: boolean }) => r.flagged,
    absent: false,
  }),
};

type LinkFields = typeof LINK_FIELDS;

/** See LINK_FIELDS. */
export type ResolvedLink = {
  [K in keyof LinkFields]: LinkFields[K] extends LinkField<never, infer T> ? T : never;
};

type RowOf<F> = F extends { from: (row: infer Row) => unknown } ? Row : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (u: infer I) => void
  ? I
  : never;

/** A row of RESOLVE_LINK_SQL: the columns LINK_FIELDS read. */
export type ResolveLinkRow = Intersection<RowOf<LinkFields[keyof LinkFields]>>;

/** What link-preview fetchers are shown. */
export interface LinkMeta {
  title: string | null;
  description: string | null;
  image: string | null;
}

/** A resolved link as held in the in-process cache: with the response headers of its 302 built once. */
export interface CachedLink extends ResolvedLink {
  /** Flat header list for `writeHead(302, …)`; null when the link needs a page instead of a redirect. */
  redirectHeaders: string[] | null;
  /** The blocklist generation this entry was last screened against (the redirector's; 0 = never). */
  screenedAt: number;
  /** One of its destinations is blocked (as of `screenedAt`): the 451 page. */
  blocked: boolean;
}

/** A branded domain, by host. */
export interface ResolvedHost {
  id: number;
  redirectRoot: string;
  redirect404: string;
  /** Ownership proven (or DOMAIN_VERIFY=off): only then does the domain serve. */
  verified: boolean;
  /** The blocklist generation the redirects were last screened against (0 = never; in-process only). */
  screenedAt: number;
  /** redirectRoot / redirect404 is blocked (as of `screenedAt`): the 451 page instead. */
  rootBlocked: boolean;
  notFoundBlocked: boolean;
}

/** A host as the cache holds it: one object shape whether it was read from Postgres or Redis (see toCached). */
export function toHost(
  host: Omit<ResolvedHost, 'screenedAt' | 'rootBlocked' | 'notFoundBlocked'>,
): ResolvedHost {
  return {
    id: host.id,
    redirectRoot: host.redirectRoot ?? '',
    redirect404: host.redirect404 ?? '',
    verified: host.verified !== false,
    screenedAt: 0,
    rootBlocked: false,
    notFoundBlocked: false,
  };
}

export const REDIRECT_CACHE_CONTROL = 'private, max-age=90';

/** redirectHeaders' copy source: its Location and Cache-Control are filled in. */
const REDIRECT_HEADERS: readonly string[] = [
  'Location',
  '',
  'Cache-Control',
  '',
  'Content-Length',
  '0',
  'X-Content-Type-Options',
  'nosniff',
];

/**
 * The header array of a prebuilt 302 (written with `res.writeHead(302, array)`). A copy of
 * REDIRECT_HEADERS, not an array literal: V8 may allocate a literal's arrays straight into the
 * old generation (see CachedLinkOf), and these are made for every cold redirect.
 */
export function redirectHeaders(
  location: string,
  cacheControl: string = REDIRECT_CACHE_CONTROL,
): string[] {
  const headers = REDIRECT_HEADERS.slice();
  headers[1] = location;
  headers[3] = cacheControl;
  return headers;
}

/**
 * True when every visitor gets the same 302: no password, pixels, splash, frame or overlay, and
 * no option that looks at the visitor (targeting, deep link, forwarded query, preview tags, click
 * limit). Static `parameters` are applied to the prebuilt Location.
 */
export function isPlainRedirect(link: ResolvedLink): boolean {
  return (
    !link.protected &&
    link.pixels.length === 0 &&
    link.type === 'direct' &&
    !link.geoTargets &&
    !link.deviceTargets &&
    !link.languageTargets &&
    !link.deepLink &&
    !link.forwardQuery &&
    !link.meta &&
    link.clickLimit == null
  );
}

/**
 * `url` with the link's parameters set (a parameter of the same name in the URL is replaced),
 * through the URL API so that fragments and existing parameters stay intact. Non-http(s) URLs
 * (app links) are returned as they are.
 */
export function withParameters(url: string, parameters: LinkParameter[] | null): string {
  if (!parameters?.length || !/^https?:/i.test(url)) return url;
  try {
    const u = new URL(url);
    for (const p of parameters) u.searchParams.set(p.name, p.value);
    return u.href;
  } catch {
    return url;
  }
}

/** A Location header value: printable ASCII as stored; anything else is percent-encoded through URL. */
export function headerSafeUrl(url: string): string {
  if (/^[\x21-\x7e]+$/.test(url)) return url;
  try {
    return new URL(url).href;
  } catch {
    return encodeURI(url);
  }
}

/** The select list of LINK_FIELDS (the link is `l`). */
const LINK_SELECT = Object.values(LINK_FIELDS)
  .map((f) => f.select)
  .join(',\n         ');
/** The tables LINK_FIELDS read: the link with its splash page, overlay and bio page. */
const LINK_FROM = `FROM links l
  LEFT JOIN splash_pages s ON s.id = l.splash_id AND l.type = 'splash'
  LEFT JOIN overlays o ON o.id = l.overlay_id AND l.type = 'overlay'
  LEFT JOIN bio_pages b ON b.link_id = l.id AND l.kind = 'bio'`;

/** The SQL that resolves one alias with its pixels, splash page and overlay (one round trip). */
export const RESOLVE_LINK_SQL = `
  SELECT ${LINK_SELECT}
  ${LINK_FROM}
  WHERE l.alias = $1`;

/**
 * The same rows for every short code served at `/<alias>` (QR codes live at `/q/`), in id order
 * after `$1`, `$2` at most: the link snapshot's batches (keyset pagination on the primary key).
 */
export const RESOLVE_LINKS_AFTER_SQL = `
  SELECT ${LINK_SELECT}
  ${LINK_FROM}
  WHERE l.id > $1 AND l.kind <> 'qr'
  ORDER BY l.id
  LIMIT $2`;

const FIELD_ENTRIES = Object.entries(LINK_FIELDS) as Array<
  [string, LinkField<ResolveLinkRow, unknown>]
>;

/** A row of RESOLVE_LINK_SQL as a link (a passing object: `toCached` gives the one the cache holds). */
export function fromRow(row: ResolveLinkRow): ResolvedLink {
  const link: Record<string, unknown> = {};
  for (const [name, f] of FIELD_ENTRIES) link[name] = f.from(row);
  return link as ResolvedLink;
}

/**
 * The link without the fields that hold their `absent` value (null, false, []): what the link
 * snapshot stores. `toCached` gives them back, as it does for an entry cached in Redis before a
 * field existed; every field of LINK_FIELDS is carried, a new one included, with no change here.
 */
export function compactLink(link: ResolvedLink): Partial<ResolvedLink> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of FIELD_ENTRIES) {
    const value = (link as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (f.absent === null && value === null) continue;
    if (f.absent === false && value === false) continue;
    if (Array.isArray(f.absent) && Array.isArray(value) && value.length === 0) continue;
    out[name] = value;
  }
  return out as Partial<ResolvedLink>;
}

/** `compactLink(fromRow(row))` in one pass (the link snapshot's million rows). */
export function compactRow(row: ResolveLinkRow): Partial<ResolvedLink> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of FIELD_ENTRIES) {
    const value = f.from(row);
    if (value === undefined) continue;
    if (f.absent === null && value === null) continue;
    if (f.absent === false && value === false) continue;
    if (Array.isArray(f.absent) && Array.isArray(value) && value.length === 0) continue;
    out[name] = value;
  }
  return out as Partial<ResolvedLink>;
}

/** The value of every absent `[]` field of a cached link: one frozen array, read only. */
const EMPTY: readonly never[] = Object.freeze([]);

/** The code of one property of CachedLinkOf: `link.<name>`, or its `absent` value when the entry has none. */
function cachedValue(name: string, absent: unknown): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`LINK_FIELDS: bad field name ${name}`);
  if (absent === undefined) return `link.${name}`;
  if (absent === null) return `link.${name} ?? null`;
  if (absent === false) return `link.${name} === true`;
  if (Array.isArray(absent) && absent.length === 0) return `link.${name} ?? EMPTY`;
  throw new Error(`LINK_FIELDS.${name}: absent must be null, false or []`);
}

/**
 * The constructor of the cached link, compiled once from LINK_FIELDS: `this.id = link.id; …;
 * this.domainId = link.domainId ?? null; …; this.redirectHeaders = null; this.screenedAt = 0;
 * this.blocked = false`. Every cached link gets one hidden class with all its fields inside the
 * object (V8 sizes a constructor's objects by its `this.` assignments); the same object filled by
 * a loop over the fields gets them in an out-of-object property array, one more load per property
 * read on the redirect path.
 *
 * A constructor, not an object literal: V8 decides per literal whether to allocate its objects
 * straight into the old generation (allocation-site pretenuring), from how many of them outlived
 * young-generation collections, and keeps the decision. Links loaded from Postgres live on, and
 * the count can also land high while the code is being optimized, so in some processes every
 * link a cold api decoded for a single request went to the old generation, and full collections
 * followed (docs/performance.md, "The cold redirect's tail"). A constructor's objects are never
 * pretenured; nor are the copies of redirectHeaders or the shared EMPTY array.
 */
const CachedLinkOf = new Function(
  'EMPTY',
  `return function CachedLink(link) {
  ${FIELD_ENTRIES.map(([name, f]) => `this.${name} = ${cachedValue(name, f.absent)};`).join('\n  ')}
  this.redirectHeaders = null;
  this.screenedAt = 0;
  this.blocked = false;
};`,
)(EMPTY) as new (link: ResolvedLink) => CachedLink;

/**
 * The link as the in-process cache holds it, with its prebuilt 302 headers (to its URL, or to its
 * fallback while the target is broken): a new object with
 * every field, in the order of LINK_FIELDS, whatever the source, a row (fromRow) or Redis
 * (JSON.parse keeps the JSON's key order and leaves out what was undefined). Links of several
 * shapes made every property read on the redirect path megamorphic once entries loaded from
 * Postgres and from Redis mixed in the cache (the hot redirect 20 % slower after a minute).
 */
export function toCached(link: ResolvedLink): CachedLink {
  const cached = new CachedLinkOf(link);
  if (isPlainRedirect(cached))
    cached.redirectHeaders = redirectHeaders(
      headerSafeUrl(withParameters(cached.fallbackUrl ?? cached.url, cached.parameters)),
    );
  return cached;
}
