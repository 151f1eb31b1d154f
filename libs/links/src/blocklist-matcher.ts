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

/**
 * The host a URL names, as entries are stored: IDNA applied whatever the scheme (an app scheme's
 * host is opaque to the URL parser: decoded and read as an http host here), lower case, every
 * trailing dot stripped, empty labels dropped. Null when there is none.
 */
export function canonicalHost(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  let host = parsed.hostname;
  if (!host) return null;
  if (!SPECIAL.has(parsed.protocol)) {
    try {
      host = new URL(`http://${canonicalText(host)}`).hostname;
    } catch {
      host = host.toLowerCase();
    }
  }
  host = host.toLowerCase().split('.').filter(Boolean).join('.');
  return host || null;
}

/**
 * What a destination is matched as: for the URL and every fallback URL of an `intent:` link, its
 * text (canonicalText: keywords are looked for in it and in the URL as written) and the hosts of
 * both spellings (canonicalHost of the URL as written and of its canonical text).
 */
export function destinationSpellings(url: string): { texts: string[]; hosts: string[] } {
  const texts: string[] = [];
  const hosts: string[] = [];
  for (const u of [url, ...intentFallbacks(url)]) {
    const text = canonicalText(u);
    texts.push(u.toLowerCase(), text);
    for (const h of [canonicalHost(u), canonicalHost(text)])
      if (h !== null && !hosts.includes(h)) hosts.push(h);
  }
  return { texts, hosts };
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
   * URL). URLs that do not parse are checked for keywords only.
   */
  match(url: string): string | null {
    if (this.empty) return null;
    const { texts, hosts } = destinationSpellings(url);
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
