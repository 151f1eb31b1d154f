/** `brand.example`, `Brand.Example`, `https://brand.example/` → `brand.example`; null when malformed. */
export function hostOfDomainRef(ref: string): string | null {
  const value = ref.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.pathname !== '/' || url.search || url.hash || url.username || url.port) return null;
    return url.hostname.toLowerCase().replace(/\.$/, '') || null;
  } catch {
    return null;
  }
}

/** A LIKE pattern matching `keyword` literally anywhere (wildcards escaped with backslash). */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
