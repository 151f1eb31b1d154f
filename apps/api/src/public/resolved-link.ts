import { LinkKind, LinkType } from '@app/database';

export interface PixelView {
  type: string;
  tag: string;
}

export interface SplashView {
  title: string;
  message: string;
  imageUrl: string;
  countdown: number;
  buttonText: string;
}

export interface OverlayView {
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
  pixels: PixelView[];
  splash: SplashView | null;
  overlay: OverlayView | null;
}

/** A resolved link as held in the in-process cache: with the response headers of its 302 built once. */
export interface CachedLink extends ResolvedLink {
  /** Flat header list for `writeHead(302, …)`; null when the link needs a page instead of a redirect. */
  redirectHeaders: string[] | null;
}

/** A branded domain, by host. */
export interface ResolvedHost {
  id: number;
  redirectRoot: string;
  redirect404: string;
}

export const REDIRECT_CACHE_CONTROL = 'private, max-age=90';

/** True when the visitor gets a plain 302 (no password, pixels, splash, frame or overlay). */
export function isPlainRedirect(link: ResolvedLink): boolean {
  return !link.protected && link.pixels.length === 0 && link.type === 'direct';
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

/** Adds the prebuilt 302 headers (in place: the object is fresh from JSON or a row). */
export function toCached(link: ResolvedLink): CachedLink {
  const cached = link as CachedLink;
  cached.redirectHeaders = isPlainRedirect(link)
    ? [
        'Location',
        headerSafeUrl(link.url),
        'Cache-Control',
        REDIRECT_CACHE_CONTROL,
        'Content-Length',
        '0',
      ]
    : null;
  return cached;
}

/** The SQL that resolves one alias with its pixels, splash page and overlay (one round trip). */
export const RESOLVE_LINK_SQL = `
  SELECT l.id, l.user_id, l.kind, l.alias, l.url, l.domain_id, l.type, l.title, l.expires_at,
         (l.password_hash IS NOT NULL) AS protected,
         COALESCE((SELECT json_agg(json_build_object('type', p.type, 'tag', p.tag) ORDER BY p.id)
                   FROM link_pixels lp JOIN pixels p ON p.id = lp.pixel_id WHERE lp.link_id = l.id), '[]'::json) AS pixels,
         CASE WHEN s.id IS NULL THEN NULL ELSE json_build_object(
           'title', s.title, 'message', s.message, 'imageUrl', s.image_url, 'countdown', s.countdown,
           'buttonText', s.button_text) END AS splash,
         CASE WHEN o.id IS NULL THEN NULL ELSE json_build_object(
           'type', o.type, 'message', o.message, 'buttonText', o.button_text, 'buttonLink', o.button_link,
           'bgColor', o.bg_color, 'textColor', o.text_color, 'buttonColor', o.button_color, 'position', o.position) END AS overlay
  FROM links l
  LEFT JOIN splash_pages s ON s.id = l.splash_id AND l.type = 'splash'
  LEFT JOIN overlays o ON o.id = l.overlay_id AND l.type = 'overlay'
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
  pixels: PixelView[];
  splash: SplashView | null;
  overlay: OverlayView | null;
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
  };
}
