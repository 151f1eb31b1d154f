import { DeepLink, DeviceTarget, GeoTarget, LanguageTarget } from '@app/database';

/** The columns of a `links` row that name where visitors are sent (as the re-scan reads them). */
export interface LinkTargetColumns {
  url: string;
  expiration_redirect: string | null;
  deep_link: DeepLink | null;
  geo_targets: GeoTarget[] | null;
  device_targets: DeviceTarget[] | null;
  language_targets: LanguageTarget[] | null;
}

/** The select list of LinkTargetColumns (`l` the link). */
export const LINK_TARGET_SELECT =
  'l.url, l.expiration_redirect, l.deep_link, l.geo_targets, l.device_targets, l.language_targets';

/**
 * Every target of a link the feeds and the lookup re-check: its URL, each targeting rule's link,
 * its expiration redirect and its deep links, each once, in that order.
 */
export function linkTargets(row: LinkTargetColumns): string[] {
  const all = [
    row.url,
    ...(row.geo_targets ?? []).map((t) => t.link),
    ...(row.device_targets ?? []).map((t) => t.link),
    ...(row.language_targets ?? []).map((t) => t.link),
    row.expiration_redirect,
    row.deep_link?.apple,
    row.deep_link?.google,
  ];
  return [...new Set(all.filter((u): u is string => typeof u === 'string' && u.length > 0))];
}
