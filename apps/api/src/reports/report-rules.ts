import { createHmac, timingSafeEqual } from 'node:crypto';

/** The reasons a report may give (the form's select, `reason` of `POST /api/report`). */
export const REPORT_REASONS = ['phishing', 'malware', 'spam', 'illegal', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/** The labels of the form's select. */
export const REASON_LABELS: Record<ReportReason, string> = {
  phishing: 'Phishing',
  malware: 'Malware',
  spam: 'Spam',
  illegal: 'Illegal content',
  other: 'Other',
};

export const MAX_DETAILS = 1000;
export const MAX_REPORT_URL = 2048;
export const MAX_EMAIL = 254;
/** Reports (accepted or refused) per client address in a window, page and API together. */
export const REPORTS_PER_WINDOW = 10;
export const REPORT_WINDOW_SECONDS = 3600;
/** How long the form's signed token stays valid. */
export const FORM_TOKEN_SECONDS = 3600;

export const EMAIL_PATTERN = /^[^\s@<>()",;:]{1,64}@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** A report as sent, its fields checked for shape (the link itself is looked up afterwards). */
export interface ReportInput {
  url: string;
  reason: ReportReason;
  details: string;
  email: string | null;
}

export type Checked =
  { ok: true; value: ReportInput } | { ok: false; field: string; message: string };

function refuse(field: string, message: string): Checked {
  return { ok: false, field, message: `${field}: ${message}` };
}

/** Checks the fields of a report (form or JSON), the first refusal naming its field. */
export function checkReport(raw: Record<string, unknown>): Checked {
  const url = typeof raw.url === 'string' ? raw.url.trim() : raw.url;
  if (typeof url !== 'string' || !url) return refuse('url', 'the short link is required');
  if (url.length > MAX_REPORT_URL) return refuse('url', `at most ${MAX_REPORT_URL} characters`);
  if (!shortLinkParts(url)) return refuse('url', 'must be a short link such as https://host/abc');
  const reason = raw.reason;
  if (typeof reason !== 'string' || !(REPORT_REASONS as readonly string[]).includes(reason))
    return refuse('reason', `must be one of ${REPORT_REASONS.join(', ')}`);
  const details = raw.details ?? '';
  if (typeof details !== 'string') return refuse('details', 'must be text');
  if (details.length > MAX_DETAILS) return refuse('details', `at most ${MAX_DETAILS} characters`);
  const rawEmail = raw.email ?? null;
  if (rawEmail !== null && typeof rawEmail !== 'string')
    return refuse('email', 'must be an e-mail address');
  const email = typeof rawEmail === 'string' ? rawEmail.trim() || null : null;
  if (email !== null && (email.length > MAX_EMAIL || !EMAIL_PATTERN.test(email)))
    return refuse('email', 'must be an e-mail address');
  return {
    ok: true,
    value: { url, reason: reason as ReportReason, details: details.trim(), email },
  };
}

/** Host (lower case, no port) and alias of `https://host/alias`, or null when not of that shape. */
export function shortLinkParts(url: string): { host: string; alias: string } | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password) return null;
  const path = u.pathname.endsWith('/') ? u.pathname.slice(0, -1) : u.pathname;
  const alias = path.slice(1);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(alias)) return null;
  return { host: u.hostname.toLowerCase().replace(/\.$/, ''), alias };
}

/** The HMAC of a reporter's address (never the address itself). */
export function reporterHash(secret: string, address: string): string {
  return createHmac('sha256', `${secret}:reporter`).update(address).digest('hex');
}

/** A signed token for the form's hidden field: `<issued epoch seconds>.<hmac>`. */
export function formToken(secret: string, now = Date.now()): string {
  const ts = String(Math.floor(now / 1000));
  return `${ts}.${sign(secret, ts)}`;
}

/** Whether `token` was issued by `formToken` with this secret within FORM_TOKEN_SECONDS. */
export function validFormToken(secret: string, token: unknown, now = Date.now()): boolean {
  if (typeof token !== 'string') return false;
  const m = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(token);
  if (!m) return false;
  const age = Math.floor(now / 1000) - Number(m[1]);
  if (age < 0 || age > FORM_TOKEN_SECONDS) return false;
  const expected = Buffer.from(sign(secret, m[1]), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

function sign(secret: string, ts: string): string {
  return createHmac('sha256', `${secret}:report-form`).update(ts).digest('hex');
}
