import { isISO31661Alpha2 } from 'class-validator';

let byName: Map<string, string> | undefined;

/** English names people use besides the ones Intl gives (older or short forms). */
const OTHER_NAMES: Record<string, string> = {
  uk: 'GB',
  'great britain': 'GB',
  britain: 'GB',
  england: 'GB',
  usa: 'US',
  'united states of america': 'US',
  america: 'US',
  turkey: 'TR',
  'czech republic': 'CZ',
  holland: 'NL',
  'ivory coast': 'CI',
  burma: 'MM',
  swaziland: 'SZ',
  macedonia: 'MK',
  korea: 'KR',
  'republic of korea': 'KR',
  vatican: 'VA',
  'hong kong': 'HK',
  macau: 'MO',
  macao: 'MO',
  palestine: 'PS',
  'cape verde': 'CV',
  'east timor': 'TL',
  uae: 'AE',
  russia: 'RU',
};

/** Lower case, accents and punctuation folded: `Côte d’Ivoire` → `cote d ivoire`. */
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Every ISO 3166-1 alpha-2 code with its English name (Intl), built on first use. */
function names(): Map<string, string> {
  if (!byName) {
    byName = new Map();
    const display = new Intl.DisplayNames(['en'], { type: 'region' });
    for (let a = 65; a <= 90; a++)
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        if (!isISO31661Alpha2(code)) continue;
        const name = display.of(code);
        if (name && name !== code) byName.set(fold(name), code);
      }
    for (const [name, code] of Object.entries(OTHER_NAMES)) byName.set(name, code);
  }
  return byName;
}

/**
 * The ISO 3166-1 alpha-2 code (upper case) of a country given by its code (any case) or its
 * English name (`United States`, `germany`, `Côte d’Ivoire`); null when neither.
 */
export function countryCode(value: string): string | null {
  if (/^[A-Za-z]{2}$/.test(value)) {
    const code = value.toUpperCase();
    return isISO31661Alpha2(code) ? code : null;
  }
  if (value.length > 100) return null;
  return names().get(fold(value)) ?? null;
}
