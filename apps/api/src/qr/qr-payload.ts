import { isEmail } from 'class-validator';

import { InvalidFieldError, isHttpUrl } from '@app/common';
import { QrType } from '@app/database';

/**
 * The `data` of each QR type (docs/api-conventions.md, "QR codes"): validation, the canonical
 * form that is stored and shown back, and what the code stands for. Pure functions, no I/O.
 *
 * | type  | data                                                            | content                |
 * |-------|-----------------------------------------------------------------|------------------------|
 * | text  | string, 1–4296 characters                                       | the text               |
 * | link  | absolute http(s) URL                                            | the URL                |
 * | email | address, or `{email, subject?, body?}`                          | `mailto:`              |
 * | phone | digits with an optional leading `+`                             | `tel:`                 |
 * | sms   | `{phone, message?}`                                             | `SMSTO:phone:message`  |
 * | wifi  | `{ssid, pass?, encryption?: WPA\|WEP\|nopass, hidden?}`         | `WIFI:T:..;S:..;P:..;;` |
 * | vcard | `{fname?, lname?, org?, phone?, …, country?}`, at least one     | vCard 3.0 text         |
 */

export type QrData = string | Record<string, string | boolean>;

export interface QrContent {
  /** What the code stands for, in the form QR readers know (URL, mailto:, SMSTO:, WIFI:, vCard). */
  payload: string;
  /** Where the short link forwards (link, email, phone, sms); absent when it serves a page or a file. */
  target?: string;
}

export const MAX_TEXT = 4296;
export const MAX_URL = 2048;
export const WIFI_ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const;
export type WifiEncryption = (typeof WIFI_ENCRYPTIONS)[number];

export const VCARD_FIELDS = [
  'fname',
  'lname',
  'org',
  'phone',
  'cell',
  'fax',
  'email',
  'site',
  'street',
  'city',
  'state',
  'zip',
  'country',
] as const;
type VcardField = (typeof VCARD_FIELDS)[number];

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

/* eslint-disable no-control-regex -- control characters are exactly what these reject */
const CONTROL = /[\u0000-\u001f\u007f]/;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** A one-line string without control characters (DTO `name`). */
export const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f]*$/;
/* eslint-enable no-control-regex */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PHONE = /^\+?[0-9]{3,20}$/;
const VCARD_PHONE = /^\+?[0-9 ().-]{3,32}$/;

interface StringRule {
  min?: number;
  max: number;
  multiline?: boolean;
}

function str(field: string, value: unknown, rule: StringRule): string {
  const min = rule.min ?? 0;
  if (typeof value !== 'string') throw new InvalidFieldError(field, 'must be a string');
  if (value.length < min || value.length > rule.max) {
    throw new InvalidFieldError(
      field,
      min > 0
        ? `must be ${min} to ${rule.max} characters`
        : `must be at most ${rule.max} characters`,
    );
  }
  if ((rule.multiline ? CONTROL_EXCEPT_LINES : CONTROL).test(value) || LONE_SURROGATE.test(value)) {
    throw new InvalidFieldError(
      field,
      rule.multiline
        ? 'must not contain control characters'
        : 'must be one line without control characters',
    );
  }
  return value;
}

function object(
  field: string,
  value: unknown,
  allowed: readonly string[],
  expected: string,
): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidFieldError(field, `must be an object ${expected}`);
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new InvalidFieldError(`${field}.${key}`, 'unknown field');
  }
  return value as Record<string, unknown>;
}

/** Absolute http(s) URL with a host and no credentials (the rules of link destinations). */
function httpUrl(field: string, value: unknown): string {
  const s = str(field, value, { min: 1, max: MAX_URL });
  if (!isHttpUrl(s)) throw new InvalidFieldError(field, 'must be an http(s) URL');
  return s;
}

function email(field: string, value: unknown): string {
  const s = str(field, value, { min: 1, max: 254 });
  if (!isEmail(s)) throw new InvalidFieldError(field, 'must be a valid e-mail address');
  return s;
}

function phone(field: string, value: unknown): string {
  if (typeof value !== 'string' || !PHONE.test(value)) {
    throw new InvalidFieldError(
      field,
      'must be a phone number: 3 to 20 digits with an optional leading +',
    );
  }
  return value;
}

function validateEmail(data: unknown): QrData {
  if (typeof data === 'string') return email('data', data);
  const o = object(
    'data',
    data,
    ['email', 'subject', 'body'],
    'with email (or an e-mail address string)',
  );
  if (o.email === undefined) throw new InvalidFieldError('data.email', 'required');
  const out: Record<string, string> = { email: email('data.email', o.email) };
  if (o.subject !== undefined) out.subject = str('data.subject', o.subject, { max: 255 });
  if (o.body !== undefined) out.body = str('data.body', o.body, { max: 2000, multiline: true });
  return out;
}

function validateSms(data: unknown): QrData {
  const o = object('data', data, ['phone', 'message'], 'with phone');
  if (o.phone === undefined) throw new InvalidFieldError('data.phone', 'required');
  const out: Record<string, string> = { phone: phone('data.phone', o.phone) };
  if (o.message !== undefined)
    out.message = str('data.message', o.message, { max: 1000, multiline: true });
  return out;
}

function validateWifi(data: unknown): QrData {
  const o = object('data', data, ['ssid', 'pass', 'password', 'encryption', 'hidden'], 'with ssid');
  if (o.ssid === undefined) throw new InvalidFieldError('data.ssid', 'required');
  const ssid = str('data.ssid', o.ssid, { min: 1, max: 32 });
  if (Buffer.byteLength(ssid, 'utf8') > 32)
    throw new InvalidFieldError('data.ssid', 'must be at most 32 bytes');
  if (o.pass !== undefined && o.password !== undefined) {
    throw new InvalidFieldError('data.password', 'send pass or password, not both');
  }
  const passField = o.password !== undefined ? 'data.password' : 'data.pass';
  const rawPass = o.pass ?? o.password;
  const pass = rawPass === undefined ? '' : str(passField, rawPass, { max: 64 });
  let encryption: WifiEncryption;
  if (o.encryption === undefined) encryption = pass ? 'WPA' : 'nopass';
  else if (
    typeof o.encryption === 'string' &&
    (WIFI_ENCRYPTIONS as readonly string[]).includes(o.encryption)
  ) {
    encryption = o.encryption as WifiEncryption;
  } else throw new InvalidFieldError('data.encryption', 'must be WPA, WEP or nopass');
  if (encryption === 'nopass' && pass)
    throw new InvalidFieldError(passField, 'must be empty when encryption is nopass');
  if (encryption === 'WPA' && (pass.length < 8 || pass.length > 64)) {
    throw new InvalidFieldError(passField, 'must be 8 to 64 characters for WPA');
  }
  if (encryption === 'WEP' && pass.length < 5)
    throw new InvalidFieldError(passField, 'must be 5 to 64 characters for WEP');
  if (o.hidden !== undefined && typeof o.hidden !== 'boolean')
    throw new InvalidFieldError('data.hidden', 'must be a boolean');
  const out: Record<string, string | boolean> = { ssid, encryption, hidden: o.hidden === true };
  if (encryption !== 'nopass') out.pass = pass;
  return out;
}

function validateVcard(data: unknown): QrData {
  const o = object('data', data, VCARD_FIELDS, `with at least one of ${VCARD_FIELDS.join(', ')}`);
  const out: Record<string, string> = {};
  for (const key of VCARD_FIELDS) {
    const value = o[key];
    if (value === undefined || value === '') continue;
    const field = `data.${key}`;
    if (key === 'email') out[key] = email(field, value);
    else if (key === 'site') out[key] = httpUrl(field, value);
    else if (key === 'phone' || key === 'cell' || key === 'fax') {
      if (
        typeof value !== 'string' ||
        !VCARD_PHONE.test(value) ||
        value.replace(/\D/g, '').length < 3 ||
        value.lastIndexOf('+') > 0
      ) {
        throw new InvalidFieldError(
          field,
          'must be a phone number: digits, spaces, ( ) . - and an optional leading +',
        );
      }
      out[key] = value;
    } else out[key] = str(field, value, { max: 255, multiline: key === 'street' });
  }
  if (Object.keys(out).length === 0) {
    throw new InvalidFieldError('data', `must have at least one of ${VCARD_FIELDS.join(', ')}`);
  }
  return out;
}

/**
 * Checks `data` for `type` and returns its canonical form (what is stored and shown back).
 * Throws InvalidFieldError naming the field (`data`, `data.ssid`, …).
 */
export function validateQrData(type: QrType, data: unknown): QrData {
  switch (type) {
    case 'text':
      return str('data', data, { min: 1, max: MAX_TEXT, multiline: true });
    case 'link':
      return httpUrl('data', data);
    case 'email':
      return validateEmail(data);
    case 'phone':
      return phone('data', data);
    case 'sms':
      return validateSms(data);
    case 'wifi':
      return validateWifi(data);
    case 'vcard':
      return validateVcard(data);
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding (input: the canonical form returned by validateQrData)
// ---------------------------------------------------------------------------------------------

const crlf = (s: string) => s.replace(/\r\n|\r|\n/g, '\r\n');

/** `mailto:` URL (RFC 6068): address kept readable, subject and body percent-encoded, CRLF line breaks. */
export function mailtoUrl(address: string, subject?: string, body?: string): string {
  const params: string[] = [];
  if (subject) params.push(`subject=${encodeURIComponent(subject)}`);
  if (body) params.push(`body=${encodeURIComponent(crlf(body))}`);
  return `mailto:${encodeURIComponent(address).replace(/%40/g, '@')}${params.length ? `?${params.join('&')}` : ''}`;
}

/** Escapes `\ ; , : "` with a backslash, as the `WIFI:` format requires. */
export function escapeWifi(value: string): string {
  return value.replace(/([\\;,:"])/g, '\\$1');
}

export function wifiPayload(
  ssid: string,
  encryption: WifiEncryption,
  pass: string | undefined,
  hidden: boolean,
): string {
  let out = `WIFI:T:${encryption};S:${escapeWifi(ssid)};`;
  if (encryption !== 'nopass' && pass) out += `P:${escapeWifi(pass)};`;
  if (hidden) out += 'H:true;';
  return `${out};`;
}

/** vCard 3.0 text value escaping: `\` `,` `;` and line breaks. */
export function escapeVcard(value: string): string {
  return value.replace(/[\\,;]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds a content line at 75 octets (RFC 2425 §5.8.1) without splitting a UTF-8 sequence. */
export function foldVcardLine(line: string): string {
  if (Buffer.byteLength(line, 'utf8') <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let bytes = 0;
  let limit = 75;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > limit) {
      parts.push(current);
      current = '';
      bytes = 0;
      limit = 74; // continuation lines start with one space
    }
    current += ch;
    bytes += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

export function vcardPayload(card: Partial<Record<VcardField, string>>): string {
  const e = (k: VcardField) => escapeVcard(card[k] ?? '');
  const name = [card.fname, card.lname].filter(Boolean).join(' ');
  const fn =
    name ||
    card.org ||
    card.email ||
    card.phone ||
    card.cell ||
    card.fax ||
    card.site ||
    card.city ||
    card.country ||
    card.street ||
    card.state ||
    card.zip ||
    '';
  const lines = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `N:${e('lname')};${e('fname')};;;`,
    `FN:${escapeVcard(fn)}`,
  ];
  if (card.org) lines.push(`ORG:${e('org')}`);
  if (card.phone) lines.push(`TEL;TYPE=WORK,VOICE:${e('phone')}`);
  if (card.cell) lines.push(`TEL;TYPE=CELL:${e('cell')}`);
  if (card.fax) lines.push(`TEL;TYPE=FAX:${e('fax')}`);
  if (card.email) lines.push(`EMAIL;TYPE=INTERNET:${e('email')}`);
  if (card.site) lines.push(`URL:${card.site}`);
  if (card.street || card.city || card.state || card.zip || card.country) {
    lines.push(
      `ADR;TYPE=WORK:;;${e('street')};${e('city')};${e('state')};${e('zip')};${e('country')}`,
    );
  }
  lines.push('END:VCARD');
  return `${lines.map(foldVcardLine).join('\r\n')}\r\n`;
}

/** What a QR code of `type` with canonical `data` stands for, and where its short link forwards. */
export function qrContent(type: QrType, data: QrData): QrContent {
  const o = typeof data === 'object' ? data : {};
  const s = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  switch (type) {
    case 'text':
      return { payload: String(data) };
    case 'link': {
      const href = new URL(String(data)).href;
      return { payload: href, target: href };
    }
    case 'email': {
      const url =
        typeof data === 'string'
          ? mailtoUrl(data)
          : mailtoUrl(s('email') ?? '', s('subject'), s('body'));
      return { payload: url, target: url };
    }
    case 'phone':
      return { payload: `tel:${String(data)}`, target: `tel:${String(data)}` };
    case 'sms': {
      const number = s('phone') ?? '';
      const message = s('message') ?? '';
      return {
        payload: `SMSTO:${number}:${message}`,
        target: `sms:${number}${message ? `?body=${encodeURIComponent(crlf(message))}` : ''}`,
      };
    }
    case 'wifi':
      return {
        payload: wifiPayload(
          s('ssid') ?? '',
          (s('encryption') ?? 'nopass') as WifiEncryption,
          s('pass'),
          o.hidden === true,
        ),
      };
    case 'vcard':
      return { payload: vcardPayload(o as Partial<Record<VcardField, string>>) };
  }
}
