import { CachedLink, ResolvedHost } from './resolved-link';

/** What screening asks of a blocklist (Blocklist, or the worker's matcher for the snapshot). */
export interface Screener {
  /** Grows with every change of the list. */
  readonly generation: number;
  /** The entry that blocks `url`, or null. */
  match(url: string): string | null;
}

/**
 * Re-screens a cached link when the blocklist changed since it was last screened (one comparison
 * on the redirect path otherwise): `blocked` is set when anyone could be sent to a blocked
 * destination by it: its URL, expiration redirect, fallback (while served), deep links (an intent's fallback URL
 * included), targeting rules, or the button of its splash page or overlay.
 */
export function screenLink(blocklist: Screener, link: CachedLink): void {
  if (link.screenedAt === blocklist.generation) return;
  const targets = [
    link.url,
    link.expirationRedirect,
    link.fallbackUrl,
    link.deepLink?.apple,
    link.deepLink?.google,
    link.type === 'splash' ? link.splash?.link : null,
    link.type === 'overlay' ? link.overlay?.buttonLink : null,
    ...(link.geoTargets ?? []).map((t) => t.link),
    ...(link.deviceTargets ?? []).map((t) => t.link),
    ...(link.languageTargets ?? []).map((t) => t.link),
  ];
  link.blocked = targets.some((url) => !!url && blocklist.match(url) !== null);
  link.screenedAt = blocklist.generation;
}

/** Re-screens a branded domain's redirectroot and redirect404 (as screenLink does links). */
export function screenHost(blocklist: Screener, host: ResolvedHost): void {
  if (host.screenedAt === blocklist.generation) return;
  host.rootBlocked = !!host.redirectRoot && blocklist.match(host.redirectRoot) !== null;
  host.notFoundBlocked = !!host.redirect404 && blocklist.match(host.redirect404) !== null;
  host.screenedAt = blocklist.generation;
}
