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
 * Everything the redirector needs to answer a short code without another lookup. This is what
 * the caches hold (Redis as JSON): no password hash, no statistics.
 */
export interface ResolvedLink {
  id: number;
  userId: number;
  kind: LinkKind;
  alias: string;
  url: string;
  /** Branded domain the link lives on; null = the PUBLIC_URL host. */
  domainId: number | null;
  type: LinkType;
  title: string;
  /** Epoch milliseconds; null = never expires. */
  expiresAt: number | null;
  /** The link has a password: the form first. */
  protected: boolean;
  pixels: PixelTag[];
  splash: SplashContent | null;
  overlay: OverlayContent | null;
  /** A bio page's content (kind `bio`), else null. */
  bio: BioContent | null;
  /** Link options (null / false when unset). */
  geoTargets: GeoTarget[] | null;
  deviceTargets: DeviceTarget[] | null;
  languageTargets: LanguageTarget[] | null;
  deepLink: DeepLink | null;
  parameters: LinkParameter[] | null;
  forwardQuery: boolean;
  meta: LinkMeta | null;
  clickLimit: number | null;
  expirationRedirect: string | null;
  /** An admin disabled the link: the 451 page. */
  disabled: boolean;
}

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

/** The header array of a prebuilt 302 (written with `res.writeHead(302, array)`). */
export function redirectHeaders(
  location: string,
  cacheControl: string = REDIRECT_CACHE_CONTROL,
): string[] {
  return [
    'Location',
    location,
    'Cache-Control',
    cacheControl,
    'Content-Length',
    '0',
    'X-Content-Type-Options',
    'nosniff',
  ];
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

/**
 * The link as the in-process cache holds it, with its prebuilt 302 headers: a new object with
 * every field, in this order, whatever the source, a row (fromRow) or Redis (JSON.parse keeps the
 * JSON's key order and leaves out what was undefined). Links of several shapes made every property
 * read on the redirect path megamorphic once entries loaded from Postgres and from Redis mixed in
 * the cache (the hot redirect 20 % slower after a minute).
 */
export function toCached(link: ResolvedLink): CachedLink {
  return {
    id: link.id,
    userId: link.userId,
    kind: link.kind,
    alias: link.alias,
    url: link.url,
    domainId: link.domainId ?? null,
    type: link.type,
    title: link.title,
    expiresAt: link.expiresAt ?? null,
    protected: link.protected === true,
    pixels: link.pixels ?? [],
    splash: link.splash ?? null,
    overlay: link.overlay ?? null,
    bio: link.bio ?? null,
    geoTargets: link.geoTargets ?? null,
    deviceTargets: link.deviceTargets ?? null,
    languageTargets: link.languageTargets ?? null,
    deepLink: link.deepLink ?? null,
    parameters: link.parameters ?? null,
    forwardQuery: link.forwardQuery === true,
    meta: link.meta ?? null,
    clickLimit: link.clickLimit ?? null,
    expirationRedirect: link.expirationRedirect ?? null,
    disabled: link.disabled === true,
    redirectHeaders: isPlainRedirect(link)
      ? redirectHeaders(headerSafeUrl(withParameters(link.url, link.parameters)))
      : null,
    screenedAt: 0,
    blocked: false,
  };
}

/** The SQL that resolves one alias with its pixels, splash page and overlay (one round trip). */
export const RESOLVE_LINK_SQL = `
  SELECT l.id, l.user_id, l.kind, l.alias, l.url, l.domain_id, l.type, l.title, l.expires_at,
         (l.password_hash IS NOT NULL) AS protected,
         COALESCE((SELECT json_agg(json_build_object('type', p.type, 'tag', p.tag) ORDER BY p.id)
                   FROM link_pixels lp JOIN pixels p ON p.id = lp.pixel_id WHERE lp.link_id = l.id), '[]'::json) AS pixels,
         CASE WHEN s.id IS NULL THEN NULL ELSE json_build_object(
           'title', s.title, 'message', s.message, 'imageUrl', s.image_url, 'link', s.link, 'countdown', s.countdown,
           'buttonText', s.button_text) END AS splash,
         CASE WHEN o.id IS NULL THEN NULL ELSE json_build_object(
           'type', o.type, 'message', o.message, 'buttonText', o.button_text, 'buttonLink', o.button_link,
           'bgColor', o.bg_color, 'textColor', o.text_color, 'buttonColor', o.button_color, 'position', o.position) END AS overlay,
         CASE WHEN b.link_id IS NULL THEN NULL ELSE json_build_object(
           'name', b.name, 'description', l.description, 'avatar', b.avatar, 'theme', b.theme, 'socials', b.socials,
           'links', COALESCE((SELECT json_agg(json_build_object('n', e.n - 1, 'title', e.item->>'title', 'url', e.item->>'url') ORDER BY e.n)
                              FROM jsonb_array_elements(b.links) WITH ORDINALITY AS e(item, n)
                              WHERE NOT (e.item ? 'link') OR EXISTS (
                                SELECT 1 FROM links sl WHERE sl.id = (e.item->>'link')::int AND sl.user_id = l.user_id
                                  AND sl.status = 'public')), '[]'::json)) END AS bio,
         l.geo_targets, l.device_targets, l.language_targets, l.deep_link, l.parameters, l.forward_query,
         l.meta_title, l.meta_description, l.meta_image, l.click_limit, l.expiration_redirect,
         (l.disabled_at IS NOT NULL) AS disabled
  FROM links l
  LEFT JOIN splash_pages s ON s.id = l.splash_id AND l.type = 'splash'
  LEFT JOIN overlays o ON o.id = l.overlay_id AND l.type = 'overlay'
  LEFT JOIN bio_pages b ON b.link_id = l.id AND l.kind = 'bio'
  WHERE l.alias = $1`;

export interface ResolveLinkRow {
  id: number;
  user_id: number;
  kind: LinkKind;
  alias: string;
  url: string;
  domain_id: number | null;
  type: LinkType;
  title: string;
  expires_at: Date | null;
  protected: boolean;
  pixels: PixelTag[];
  splash: SplashContent | null;
  overlay: OverlayContent | null;
  bio: BioContent | null;
  geo_targets: GeoTarget[] | null;
  device_targets: DeviceTarget[] | null;
  language_targets: LanguageTarget[] | null;
  deep_link: DeepLink | null;
  parameters: LinkParameter[] | null;
  forward_query: boolean;
  meta_title: string | null;
  meta_description: string | null;
  meta_image: string | null;
  click_limit: number | null;
  expiration_redirect: string | null;
  disabled: boolean;
}

export function fromRow(row: ResolveLinkRow): ResolvedLink {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    alias: row.alias,
    url: row.url,
    domainId: row.domain_id,
    type: row.type,
    title: row.title,
    expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
    protected: row.protected,
    pixels: row.pixels ?? [],
    splash: row.splash,
    overlay: row.overlay,
    bio: row.bio,
    geoTargets: row.geo_targets,
    deviceTargets: row.device_targets,
    languageTargets: row.language_targets,
    deepLink: row.deep_link,
    parameters: row.parameters,
    forwardQuery: row.forward_query,
    meta:
      row.meta_title || row.meta_description || row.meta_image
        ? { title: row.meta_title, description: row.meta_description, image: row.meta_image }
        : null,
    clickLimit: row.click_limit,
    expirationRedirect: row.expiration_redirect,
    disabled: row.disabled,
  };
}
