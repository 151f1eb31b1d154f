import type { Schemas } from '../../api';

/** A layout `POST /api/import?source=` reads (the OpenAPI document's enum). */
export type ImportSource = Schemas['ImportView']['source'];

/** Every source the API accepts, with the columns it reads (a `Record`: the type-check follows the API). */
const SOURCES: Record<ImportSource, { name: string; columns: string }> = {
  csv: {
    name: 'CSV of this service',
    columns: 'url, alias, title, description, domain, expiry (YYYY-MM-DD HH:MM:SS)',
  },
  bitly: { name: 'Bitly export', columns: 'long_url, link or custom_bitlinks, title' },
  shlink: {
    name: 'Shlink export',
    columns: 'longUrl, shortUrl or Short code, Domain, title',
  },
  yourls: { name: 'YOURLS links table', columns: 'keyword, url, title' },
  kutt: {
    name: 'Kutt links',
    columns: 'target, address, description, domain, expire_in (a JSON file of its links too)',
  },
};

export const SOURCE_IDS = Object.keys(SOURCES) as ImportSource[];
export const sourceInfo = (source: ImportSource) => SOURCES[source];
