import { canonicalHost, canonicalText, destinationSpellings, urlKeyOf } from '../blocklist-matcher';

/** The list formats a feed may be in (detected from its content: detectFeedFormat). */
export type FeedFormat =
  'urlhaus-csv' | 'urlhaus-text' | 'phishtank-csv' | 'phishtank-json' | 'openphish';

/** One flagged destination: a host (it and its subdomains) or an exact URL, and what it is. */
export interface FeedEntry {
  kind: 'host' | 'url';
  /** feedHostKey / feedUrlKey of the entry. */
  key: string;
  /** `phishing`, `malware`. */
  type: string;
}

/**
 * The format of a feed, from its first bytes (never from its name or address):
 * - first non-blank character `[` or `{`: a PhishTank JSON dump (objects with a `url`);
 * - a first non-comment line naming the columns `phish_id` and `url`: a PhishTank CSV dump;
 * - a `#` comment naming the columns `dateadded,url` or a first non-comment line starting with
 *   `"`: a URLhaus CSV export;
 * - any other list of one URL (or host) a line: URLhaus's plain-text list when a `#` comment
 *   mentions URLhaus or abuse.ch, else an OpenPhish-style list (phishing).
 */
export function detectFeedFormat(text: string): FeedFormat {
  const head = text.slice(0, 64 * 1024);
  const trimmed = head.trimStart();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) return 'phishtank-json';
  const lines = head.split(/\r?\n/);
  const comments = lines.filter((l) => l.startsWith('#')).join('\n');
  const first = lines.find((l) => l.trim() && !l.startsWith('#'))?.trim() ?? '';
  if (/(^|,)"?phish_id"?(,|$)/i.test(first) && /(^|,)"?url"?(,|$)/i.test(first))
    return 'phishtank-csv';
  if (/dateadded\s*,\s*url/i.test(comments) || first.startsWith('"')) return 'urlhaus-csv';
  if (/urlhaus|abuse\.ch/i.test(comments)) return 'urlhaus-text';
  return 'openphish';
}

/** A host as entries store it (canonicalHost: IDNA, lower case, no trailing dot); null when none. */
export function feedHostKey(raw: string): string | null {
  const value = raw.trim();
  if (!value || /[\s/?#@]/.test(value)) return null;
  const host = canonicalHost(`http://${canonicalText(value)}`);
  return host && host.includes('.') ? host.replace(/^\[|\]$/g, '') : null;
}

/**
 * An http(s) URL as entries store it: the blocklist's canonical text (percent-escapes decoded,
 * NFKC, lower case), then host (canonicalHost), port when not the default, path and query; the
 * scheme and fragment are left out (`http://` and `https://` name the same place). A URL without
 * a scheme is read as http. Null when it is no http(s) URL.
 */
export const feedUrlKey: (raw: string) => string | null = urlKeyOf;

/**
 * A line of a plain list: a URL (with a scheme, or a path) is an exact URL entry; a bare host
 * name (`bad.example`) flags that host and its subdomains.
 */
export function plainEntry(line: string, type: string): FeedEntry | null {
  const value = line.trim();
  if (!value || value.startsWith('#')) return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value) && !/[/?#]/.test(value)) {
    const host = feedHostKey(value);
    return host ? { kind: 'host', key: host, type } : null;
  }
  const key = feedUrlKey(value);
  return key ? { kind: 'url', key, type } : null;
}

/** The fields of one CSV line (RFC 4180 quoting; a record does not span lines in these feeds). */
export function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i += 1;
      while (i < line.length) {
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            value += '"';
            i += 2;
          } else {
            i += 1;
            break;
          }
        } else value += line[i++];
      }
      fields.push(value);
      const comma = line.indexOf(',', i);
      i = comma < 0 ? line.length + 1 : comma + 1;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      fields.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}

/** URLhaus's `threat` column as a type: `malware_download` → malware. */
function urlhausType(threat: string | undefined): string {
  const t = (threat ?? '').trim().toLowerCase();
  if (!t || t.startsWith('malware')) return 'malware';
  return /^[a-z][a-z_-]{0,30}$/.test(t) ? t.replace(/_.*$/, '') : 'malware';
}

/** Lines handed to `onEntries` per batch (the loader writes each batch before parsing on). */
export const PARSE_BATCH = 2000;

/**
 * Parses a feed in `format`, handing entries to `onEntries` in batches of PARSE_BATCH (awaited:
 * the caller yields to other work between batches). Returns the counts of entries and of lines
 * that were not understood (skipped).
 */
export async function parseFeed(
  text: string,
  format: FeedFormat,
  onEntries: (entries: FeedEntry[]) => Promise<void>,
): Promise<{ entries: number; skipped: number }> {
  let batch: FeedEntry[] = [];
  let entries = 0;
  let skipped = 0;
  const push = async (entry: FeedEntry | null) => {
    if (!entry) {
      skipped += 1;
      return;
    }
    batch.push(entry);
    entries += 1;
    if (batch.length >= PARSE_BATCH) {
      const full = batch;
      batch = [];
      await onEntries(full);
    }
  };
  const urlEntry = (url: string | undefined, type: string): FeedEntry | null => {
    const key = url ? feedUrlKey(url) : null;
    return key ? { kind: 'url', key, type } : null;
  };

  if (format === 'phishtank-json') {
    const data: unknown = JSON.parse(text);
    const rows = Array.isArray(data) ? data : [data];
    for (const row of rows) {
      const url = row && typeof row === 'object' ? (row as { url?: unknown }).url : undefined;
      await push(typeof url === 'string' ? urlEntry(url, 'phishing') : null);
    }
  } else {
    let columns: string[] | null = null;
    let urlColumn = format === 'urlhaus-csv' ? 2 : 1;
    let threatColumn = 5;
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end).replace(/\r$/, '');
      start = end + 1;
      if (!line.trim()) continue;
      if (format === 'urlhaus-csv') {
        if (line.startsWith('#')) {
          const header = line.slice(1).trim();
          if (/(^|,)\s*url\s*(,|$)/i.test(header) && /dateadded/i.test(header)) {
            const names = header.split(',').map((c) => c.trim().toLowerCase());
            urlColumn = names.indexOf('url');
            threatColumn = names.indexOf('threat');
          }
          continue;
        }
        const fields = csvFields(line);
        await push(urlEntry(fields[urlColumn], urlhausType(fields[threatColumn])));
      } else if (format === 'phishtank-csv') {
        const fields = csvFields(line);
        if (!columns) {
          columns = fields.map((c) => c.trim().toLowerCase());
          urlColumn = columns.indexOf('url');
          continue;
        }
        await push(urlEntry(fields[urlColumn], 'phishing'));
      } else {
        if (line.startsWith('#')) continue;
        await push(plainEntry(line, format === 'urlhaus-text' ? 'malware' : 'phishing'));
      }
    }
  }
  if (batch.length) await onEntries(batch);
  return { entries, skipped };
}

/**
 * The fields a destination is looked up by: `h:<host>` for each host it sends visitors to and
 * each parent domain (`a.b.example` → also `b.example`), `u:<url key>` for the URL and an
 * intent link's fallback URLs (feedUrlKey), every spelling as the blocklist reads them.
 * `spellings`: the URL's destinationSpellings when the caller has them already (the blocklist
 * reads the same, DestinationPolicy computes them once for both).
 */
export function lookupFields(url: string, spellings = destinationSpellings(url)): string[] {
  const fields = new Set<string>();
  for (const host of spellings.hosts) {
    let h = host.replace(/^\[|\]$/g, '');
    for (let dot = h.indexOf('.'); dot >= 0; dot = h.indexOf('.')) {
      fields.add(`h:${h}`);
      h = h.slice(dot + 1);
    }
  }
  for (const key of spellings.urlKeys) fields.add(`u:${key}`);
  return [...fields];
}
