import { createHash } from 'node:crypto';

import { isWebHost } from '@app/common';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The one escape helper of the public pages: text and attribute values alike. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Markup that is already safe (built by `escaped`); everything else interpolated into `escaped` is escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | null | undefined | false | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(part);
}

/**
 * Tagged template: `escaped\`<p>${text}</p>\`` escapes every interpolated value unless it is
 * SafeHtml. (Not named `html`: formatters rewrite `html` templates, which would change the inline
 * style and script blocks after their CSP hashes were taken.)
 */
export function escaped(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

/** `'sha256-…'` CSP source of an inline script or style. */
export function cspHash(source: string): string {
  return `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
}

/** What a page may load besides its own inline style and script. */
export interface PageSources {
  /** Origins images may come from (pixel beacons, splash image). */
  img?: string[];
  /** Origins the page may frame (frame and overlay links: the target). */
  frame?: string[];
  /** Origins a form on the page may submit to, including where its answer redirects. */
  formAction?: string[];
}

/**
 * A strict Content-Security-Policy: nothing is allowed by default; the page's inline style and
 * script are allowed by their sha256 (every inline block is fixed text or escaped data, so a hash
 * is as tight as a per-response nonce and needs no randomness); images, frames and form targets
 * only from the origins the page needs.
 */
export function contentSecurityPolicy(
  styles: string[],
  scripts: string[],
  sources: PageSources = {},
): string {
  const parts = ["default-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"];
  if (styles.length) parts.push(`style-src ${styles.map(cspHash).join(' ')}`);
  if (scripts.length) parts.push(`script-src ${scripts.map(cspHash).join(' ')}`);
  if (sources.img?.length) parts.push(`img-src ${[...new Set(sources.img)].join(' ')}`);
  if (sources.frame?.length) parts.push(`frame-src ${[...new Set(sources.frame)].join(' ')}`);
  parts.push(
    sources.formAction?.length
      ? `form-action ${[...new Set(sources.formAction)].join(' ')}`
      : "form-action 'none'",
  );
  return parts.join('; ');
}

/**
 * `scheme://host[:port]` of an http(s) URL, for CSP source lists; null when not http(s) or when
 * its host holds anything but letters, digits, `-` and `.` (such a host could end the directive
 * and add its own, as `;` or a quote would; refused on input, kept out here for older rows).
 */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && isWebHost(u.hostname)
      ? u.origin
      : null;
  } catch {
    return null;
  }
}
