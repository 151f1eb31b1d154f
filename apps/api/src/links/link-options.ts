import { PlanService, Principal, storedUrl } from '@app/common';
import { DeviceName, FlagFeature, Link } from '@app/database';

import { countryCode } from './countries';
import { LinkOptionsDto } from './dto/link-options.dto';

/** The plan feature each option needs (when it is set, not when it is removed). */
const FEATURE: Partial<Record<keyof LinkOptionsDto, FlagFeature>> = {
  geotarget: 'geo',
  languagetarget: 'geo',
  devicetarget: 'device',
  deeplink: 'device',
  parameters: 'parameters',
};

type OptionColumns = Pick<
  Link,
  | 'geoTargets'
  | 'deviceTargets'
  | 'languageTargets'
  | 'deepLink'
  | 'parameters'
  | 'forwardQuery'
  | 'metaTitle'
  | 'metaDescription'
  | 'metaImage'
  | 'status'
  | 'clickLimit'
  | 'expirationRedirect'
  | 'fallbackUrl'
>;

/** A list option: null when empty (stored as "none"). */
const list = <T, U>(items: T[] | null | undefined, map: (t: T) => U): U[] | null =>
  items && items.length ? items.map(map) : null;

/** Every destination a link body names, with the field that names it (for DestinationPolicy). */
export function destinationsOf(
  dto: LinkOptionsDto & { url?: string },
): Array<[field: string, url: string | null | undefined]> {
  const out: Array<[string, string | null | undefined]> = [['url', dto.url]];
  dto.geotarget?.forEach((t, i) => out.push([`geotarget[${i}].link`, t.link]));
  dto.devicetarget?.forEach((t, i) => out.push([`devicetarget[${i}].link`, t.link]));
  dto.languagetarget?.forEach((t, i) => out.push([`languagetarget[${i}].link`, t.link]));
  out.push(['deeplink.apple', dto.deeplink?.apple], ['deeplink.google', dto.deeplink?.google]);
  out.push(['expirationredirect', dto.expirationredirect], ['fallbackurl', dto.fallbackurl]);
  return out;
}

/**
 * The link option columns a validated body sets (only the fields it sends; `null` removes),
 * normalised as stored (country codes upper case, devices and languages lower case, URLs as
 * `url` is stored), after the plan check of each feature used (403 naming it).
 */
export function optionColumns(
  auth: Principal,
  dto: LinkOptionsDto,
  plans: PlanService,
): Partial<OptionColumns> {
  for (const [field, feature] of Object.entries(FEATURE)) {
    const value = dto[field as keyof LinkOptionsDto];
    const set = Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null;
    if (set) plans.assertFeature(auth, feature as FlagFeature);
  }
  const out: Partial<OptionColumns> = {};
  if (dto.geotarget !== undefined)
    out.geoTargets = list(dto.geotarget, (t) => ({
      location: countryCode(t.location) as string,
      link: storedUrl(t.link),
    }));
  if (dto.devicetarget !== undefined)
    out.deviceTargets = list(dto.devicetarget, (t) => ({
      device: t.device.toLowerCase() as DeviceName,
      link: storedUrl(t.link),
    }));
  if (dto.languagetarget !== undefined)
    out.languageTargets = list(dto.languagetarget, (t) => ({
      language: t.language.toLowerCase(),
      link: storedUrl(t.link),
    }));
  if (dto.deeplink !== undefined) {
    const d = dto.deeplink;
    out.deepLink = d && (d.apple || d.google) ? { apple: d.apple, google: d.google } : null;
  }
  if (dto.parameters !== undefined)
    out.parameters = list(dto.parameters, (p) => ({ name: p.name, value: p.value }));
  if (dto.forwardquery !== undefined) out.forwardQuery = dto.forwardquery ?? false;
  if (dto.metatitle !== undefined) out.metaTitle = dto.metatitle || null;
  if (dto.metadescription !== undefined) out.metaDescription = dto.metadescription || null;
  if (dto.metaimage !== undefined) out.metaImage = dto.metaimage ? storedUrl(dto.metaimage) : null;
  if (dto.status !== undefined) out.status = dto.status ?? 'public';
  if (dto.clicklimit !== undefined) out.clickLimit = dto.clicklimit;
  if (dto.expirationredirect !== undefined)
    out.expirationRedirect = dto.expirationredirect ? storedUrl(dto.expirationredirect) : null;
  if (dto.fallbackurl !== undefined)
    out.fallbackUrl = dto.fallbackurl ? storedUrl(dto.fallbackurl) : null;
  return out;
}
