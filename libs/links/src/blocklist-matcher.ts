import { intentFallbacks, percentDecode } from '@app/common';

/** The form of a keyword entry. */
export const KEYWORD_PREFIX = 'keyword:';

/**
 * A blocklist entry as stored: a lower-case host name (`bad.example`: blocks it and every
 * subdomain) or `keyword:<word>` (blocks every URL containing the word, case-insensitively).
 * Accepts `https://bad.example/`, `BAD.example.` and `bücher.example` (stored as punycode) for a
 * host, full-width and other NFKC variants for a keyword. Null when it is neither.
 */
export function normalizeEntry(raw: string): string | null {
  const value = raw.trim();
  if (value.toLowerCase().startsWith(KEYWORD_PREFIX)) {
    const word = value.slice(KEYWORD_PREFIX.length).trim().normalize('NFKC').toLowerCase();
    return word.length >= 2 && word.length <= 100 && !/\s/.test(word)
      ? `${KEYWORD_PREFIX}${word}`
      : null;
  }
  if (!value || value.length > 253 || /\s/.test(value)) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    const host = url.hostname.toLowerCase().replace(/\.+$/, '');
    return host.includes('.') && /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/.test(host) ? host : null;
  } catch {
    return null;
  }
}

/** The lines of a blocklist file: entries, blank lines and `#` comments skipped. */
export function parseBlocklistFile(text: string): { entries: string[]; bad: number[] } {
  const entries: string[] = [];
  const bad: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const content = line.replace(/#.*$/, '').trim();
    if (!content) return;
    const entry = normalizeEntry(content);
    if (entry) entries.push(entry);
    else bad.push(i + 1);
  });
  return { entries, bad };
}

/** Rounds of percent-decoding before a spelling counts as final (`%2565` needs two). */
const MAX_DECODE_ROUNDS = 4;

/** Percent-escapes decoded until none is left (at most MAX_DECODE_ROUNDS), then NFKC, lower case. */
export function canonicalText(value: string): string {
  let text = value;
  for (let i = 0; i < MAX_DECODE_ROUNDS && text.includes('%'); i++) {
    const next = percentDecode(text);
    if (next === text) break;
    text = next;
  }
  return text.normalize('NFKC').toLowerCase().normalize('NFKC');
}

/** Schemes whose hosts the URL parser reads itself (IDNA, percent-decoding, lower case). */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** canonicalHost of a URL already parsed. */
function hostOf(parsed: URL): string | null {
  let host = parsed.hostname;
  if (!host) return null;
  if (!SPECIAL.has(parsed.protocol)) {
    try {
      host = new URL(`http://${canonicalText(host)}`).hostname;
    } catch {
      host = host.toLowerCase();
    }
  }
  host = host.toLowerCase();
  // empty labels (leading, trailing or doubled dots) dropped
  if (host.startsWith('.') || host.endsWith('.') || host.includes('..'))
    host = host.split('.').filter(Boolean).join('.');
  return host || null;
}

/**
 * The host a URL names, as entries are stored: IDNA applied whatever the scheme (an app scheme's
 * host is opaque to the URL parser: decoded and read as an http host here), lower case, every
 * trailing dot stripped, empty labels dropped. Null when there is none.
 */
export function canonicalHost(url: string): string | null {
  const parsed = parseUrl(url);
  return parsed ? hostOf(parsed) : null;
}

/**
 * The exact-URL key of an http(s) URL given as its canonical text (canonicalText) and that text
 * parsed: its host (canonicalHost), port when not the default, path and query; the scheme and
 * fragment are left out (`http://` and `https://` name the same place). Null for other schemes
 * or without a host. (feedUrlKey: the threat feeds' exact-URL entries.)
 */
export function canonicalUrlKey(parsed: URL, host: string | null = hostOf(parsed)): string | null {
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (!host) return null;
  return `${host}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}${parsed.search}`;
}

/** canonicalUrlKey of an http(s) URL as written; null when it holds white space or is no http(s) URL. */
export function urlKeyOf(url: string): string | null {
  let value = url.trim();
  if (!value || /\s/.test(value)) return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) value = `http://${value}`;
  const parsed = parseUrl(canonicalText(value));
  return parsed ? canonicalUrlKey(parsed) : null;
}

/** What a destination is matched as, computed once for the blocklist and the threat feeds. */
export interface DestinationSpellings {
  /** Keywords are looked for in these: each URL as written (lower case) and its canonicalText. */
  texts: string[];
  /** canonicalHost of each URL as written and of its canonical text, without repeats. */
  hosts: string[];
  /**
   * The exact-URL key (canonicalUrlKey of its canonical text) of each http(s) URL, without
   * repeats: what the threat feeds' URL entries are stored as.
   */
  urlKeys: string[];
}

const HTTP = /^https?:/i;
const SPACE = /\s/;

/**
 * What a destination is matched as: for the URL and every fallback URL of an `intent:` link, its
 * text (canonicalText: keywords are looked for in it and in the URL as written), the hosts of
 * both spellings (canonicalHost of the URL as written and of its canonical text) and, for an
 * http(s) one, its exact-URL key. Each spelling is parsed once (once in all when the URL is
 * already canonical).
 */
export function destinationSpellings(url: string): DestinationSpellings {
  const texts: string[] = [];
  const hosts: string[] = [];
  const urlKeys: string[] = [];
  const fallbacks = intentFallbacks(url);
  for (let i = -1; i < fallbacks.length; i++) {
    const u = i < 0 ? url : fallbacks[i];
    const text = canonicalText(u);
    const lower = u.toLowerCase();
    texts.push(lower, text);
    const parsed = parseUrl(u);
    const host = parsed && hostOf(parsed);
    if (host !== null && !hosts.includes(host)) hosts.push(host);
    const parsedText = text === u ? parsed : parseUrl(text);
    const textHost = text === u ? host : parsedText && hostOf(parsedText);
    if (textHost !== null && !hosts.includes(textHost)) hosts.push(textHost);
    if (HTTP.test(u)) {
      // a URL with white space (inside, or around: trimmed) takes the long way (urlKeyOf)
      const key = SPACE.test(u) ? urlKeyOf(u) : parsedText && canonicalUrlKey(parsedText, textHost);
      if (key && !urlKeys.includes(key)) urlKeys.push(key);
    }
  }
  return { texts, hosts, urlKeys };
}

/** Answers "is this destination blocked?" for a set of entries. */
export class BlocklistMatcher {
  private readonly hosts = new Set<string>();
  private readonly keywords: string[] = [];

  constructor(entries: Iterable<string>) {
    for (const e of entries) {
      if (e.startsWith(KEYWORD_PREFIX)) this.keywords.push(e.slice(KEYWORD_PREFIX.length));
      else this.hosts.add(e);
    }
  }

  get empty(): boolean {
    return this.hosts.size === 0 && this.keywords.length === 0;
  }

  /**
   * The entry that blocks `url`, or null, whatever its spelling (destinationSpellings: percent
   * escapes, full-width and other NFKC variants, letter case, trailing dots, an intent's fallback
   * URL). URLs that do not parse are checked for keywords only. `spellings`: the URL's
   * destinationSpellings when the caller has them already.
   */
  match(url: string, spellings?: DestinationSpellings): string | null {
    if (this.empty) return null;
    const { texts, hosts } = spellings ?? destinationSpellings(url);
    for (const word of this.keywords)
      if (texts.some((t) => t.includes(word))) return `${KEYWORD_PREFIX}${word}`;
    for (const host of hosts) {
      for (let h = host; h;) {
        if (this.hosts.has(h)) return h;
        const dot = h.indexOf('.');
        if (dot < 0) break;
        h = h.slice(dot + 1);
      }
    }
    return null;
  }
}
