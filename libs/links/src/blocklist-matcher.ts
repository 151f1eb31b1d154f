/** The form of a keyword entry. */
export const KEYWORD_PREFIX = 'keyword:';

/**
 * A blocklist entry as stored: a lower-case host name (`bad.example`: blocks it and every
 * subdomain) or `keyword:<word>` (blocks every URL containing the word, case-insensitively).
 * Accepts `https://bad.example/` and `BAD.example.` for a host. Null when it is neither.
 */
export function normalizeEntry(raw: string): string | null {
  const value = raw.trim();
  if (value.toLowerCase().startsWith(KEYWORD_PREFIX)) {
    const word = value.slice(KEYWORD_PREFIX.length).trim().toLowerCase();
    return word.length >= 2 && word.length <= 100 && !/\s/.test(word)
      ? `${KEYWORD_PREFIX}${word}`
      : null;
  }
  if (!value || value.length > 253 || /\s/.test(value)) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    const host = url.hostname.toLowerCase().replace(/\.$/, '');
    return host.includes('.') && /^[a-z0-9.-]+$/.test(host) ? host : null;
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

  /** The entry that blocks `url`, or null. URLs that do not parse are checked for keywords only. */
  match(url: string): string | null {
    if (this.empty) return null;
    const lower = url.toLowerCase();
    for (const word of this.keywords) if (lower.includes(word)) return `${KEYWORD_PREFIX}${word}`;
    if (!this.hosts.size) return null;
    let host: string;
    try {
      host = new URL(url).hostname.replace(/\.$/, '');
    } catch {
      return null;
    }
    for (let h = host; h;) {
      if (this.hosts.has(h)) return h;
      const dot = h.indexOf('.');
      if (dot < 0) break;
      h = h.slice(dot + 1);
    }
    return null;
  }
}
