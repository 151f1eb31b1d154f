import { formatDateTime } from '@app/common';
import { ImportSource } from '@app/database';

import type { ImportLinkInput } from '@app/links';

/** One link of an import file: what LinksService.prepareImport takes. */
export type ImportRow = ImportLinkInput;

/** A record as read: column name (normalised: lower case, no spaces, `_` or `-`) → cell. */
export type ImportRecord = Record<string, unknown>;

/** `Long URL` → `longurl`, `long_url` → `longurl`, `expire-in` → `expirein`. */
export function columnKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

const cell = (r: ImportRecord, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const v = r[key];
    if (v === undefined || v === null) continue;
    const s = String(v).trim();
    if (s) return s;
  }
  return undefined;
};

/** The last path segment of a short URL (`https://bit.ly/3xYz`, `bit.ly/3xYz` → `3xYz`). */
function aliasOfShortUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const path = value.replace(/^[a-z]+:\/\//i, '').replace(/[?#].*$/, '');
  const segments = path.split('/').filter(Boolean);
  return segments.length > 1 ? decodeURIComponent(segments[segments.length - 1]) : undefined;
}

/** A date the source wrote (ISO 8601, or already ours) as `YYYY-MM-DD HH:MM:SS`; as written when unreadable. */
function dateTime(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) return value;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : (formatDateTime(d) ?? value);
}

/**
 * The column layouts of the services' exports (names matched case-insensitively, ignoring
 * spaces, `_` and `-`):
 * - csv: url, alias, title, description, domain, expiry (this service's own layout);
 * - bitly: Bitly's link export / Bitlink fields: long_url, link (the alias is its last path
 *   segment), custom_bitlinks (first one preferred), title, created_at, tags;
 * - shlink: the web client's export (createdAt, shortUrl, longUrl, title, tags, visits) and the
 *   shlink-importer CSV (Long URL, Short code, Domain, Title, Tags);
 * - yourls: the yourls_url table / export (keyword, url, title, timestamp, ip, clicks);
 * - kutt: Kutt's link objects (address, target, description, expire_in, domain, visit_count,
 *   created_at), as CSV columns or the API's JSON `data` items.
 * Other columns are ignored.
 */
export const LAYOUTS: Record<ImportSource, (r: ImportRecord) => Omit<ImportRow, 'line'>> = {
  csv: (r) => ({
    url: cell(r, 'url'),
    alias: cell(r, 'alias', 'custom'),
    title: cell(r, 'title'),
    description: cell(r, 'description'),
    domain: cell(r, 'domain'),
    expiry: dateTime(cell(r, 'expiry')),
  }),
  bitly: (r) => ({
    url: cell(r, 'longurl'),
    alias:
      aliasOfShortUrl(cell(r, 'custombitlinks')?.split(/[,|\s]+/)[0]) ??
      aliasOfShortUrl(cell(r, 'link', 'bitlink', 'id')),
    title: cell(r, 'title'),
  }),
  shlink: (r) => ({
    url: cell(r, 'longurl'),
    alias: cell(r, 'shortcode') ?? aliasOfShortUrl(cell(r, 'shorturl')),
    title: cell(r, 'title'),
    domain: cell(r, 'domain'),
  }),
  yourls: (r) => ({
    url: cell(r, 'url'),
    alias: cell(r, 'keyword'),
    title: cell(r, 'title'),
  }),
  kutt: (r) => ({
    url: cell(r, 'target'),
    alias: cell(r, 'address'),
    description: cell(r, 'description'),
    domain: cell(r, 'domain'),
    expiry: dateTime(cell(r, 'expirein')),
  }),
};

/** The columns a layout needs in the header (one of each group); for the "missing column" error. */
export const REQUIRED_COLUMNS: Record<ImportSource, string[][]> = {
  csv: [['url']],
  bitly: [['longurl']],
  shlink: [['longurl']],
  yourls: [['url']],
  kutt: [['target']],
};

/** Maps a record of `source`'s layout to an import row. */
export function importRow(source: ImportSource, record: ImportRecord, line: number): ImportRow {
  const normalised: ImportRecord = {};
  for (const [k, v] of Object.entries(record)) normalised[columnKey(k)] = v;
  const row: ImportRow = { line };
  for (const [k, v] of Object.entries(LAYOUTS[source](normalised)))
    if (v !== undefined) (row as unknown as Record<string, unknown>)[k] = v;
  return row;
}
