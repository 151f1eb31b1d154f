/**
 * The QR codes page's form state and its mapping to and from the API's shapes (`POST /api/qr/add`,
 * `PUT /api/qr/:id/update`, `details` of `GET /api/qr/:id`). Every type comes from the generated
 * schema; only the flat form state is this file's own.
 */
import type { paths } from '../../api/schema';
import type { Schemas } from '../../api';

export type CreateQrBody = NonNullable<
  paths['/api/qr/add']['post']['requestBody']
>['content']['application/json'];
export type UpdateQrBody = Schemas['UpdateQrDto'];
export type QrType = CreateQrBody['type'];
export type QrDetails = Schemas['QrReadView']['details'];
export type QrStatistics = Schemas['QrReadView']['data'];
export type QrItem = Schemas['QrItemView'];
type WifiData = NonNullable<Extract<CreateQrBody, { type: 'wifi' }>['data']>;
type VcardData = NonNullable<Extract<CreateQrBody, { type: 'vcard' }>['data']>;
export type Encryption = NonNullable<WifiData['encryption']>;
export type VcardField = keyof VcardData & string;

/** The types in the order the form offers them, with their names for people. */
export const QR_TYPES: Array<{ type: QrType; name: string }> = [
  { type: 'link', name: 'Link (web address)' },
  { type: 'text', name: 'Text' },
  { type: 'vcard', name: 'Contact card (vCard)' },
  { type: 'wifi', name: 'Wi-Fi network' },
  { type: 'email', name: 'E-mail' },
  { type: 'phone', name: 'Phone call' },
  { type: 'sms', name: 'Text message (SMS)' },
];

export const typeName = (type: string) => QR_TYPES.find((t) => t.type === type)?.name ?? type;

export const VCARD_FIELDS: Array<{ key: VcardField; label: string; input: string }> = [
  { key: 'fname', label: 'First name', input: 'text' },
  { key: 'lname', label: 'Last name', input: 'text' },
  { key: 'org', label: 'Organisation', input: 'text' },
  { key: 'phone', label: 'Phone', input: 'tel' },
  { key: 'cell', label: 'Mobile', input: 'tel' },
  { key: 'fax', label: 'Fax', input: 'tel' },
  { key: 'email', label: 'E-mail address', input: 'email' },
  { key: 'site', label: 'Website', input: 'url' },
  { key: 'street', label: 'Street', input: 'text' },
  { key: 'city', label: 'City', input: 'text' },
  { key: 'state', label: 'State or region', input: 'text' },
  { key: 'zip', label: 'Postal code', input: 'text' },
  { key: 'country', label: 'Country', input: 'text' },
];

export const ENCRYPTIONS: Array<{ value: Encryption; name: string }> = [
  { value: 'WPA', name: 'WPA / WPA2' },
  { value: 'WEP', name: 'WEP' },
  { value: 'nopass', name: 'None (open network)' },
];

/** Everything the form edits, flat: one string per input. Colours as `#rrggbb`. */
export interface QrForm {
  type: QrType;
  name: string;
  link: string;
  text: string;
  phone: string;
  email: string;
  subject: string;
  body: string;
  smsPhone: string;
  smsMessage: string;
  ssid: string;
  pass: string;
  encryption: Encryption;
  hidden: boolean;
  vcard: Partial<Record<VcardField, string>>;
  foreground: string;
  background: string;
  logo: string;
}

export const EMPTY_FORM: QrForm = {
  type: 'link',
  name: '',
  link: '',
  text: '',
  phone: '',
  email: '',
  subject: '',
  body: '',
  smsPhone: '',
  smsMessage: '',
  ssid: '',
  pass: '',
  encryption: 'WPA',
  hidden: false,
  vcard: {},
  foreground: '#000000',
  background: '#ffffff',
  logo: '',
};

/** `rgb(R,G,B)` (the API's form) → `#rrggbb` (a colour input's); null when malformed. */
export function rgbToHex(value: string): string | null {
  const m = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(value);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((n) => n > 255)) return null;
  return `#${parts.map((n) => n.toString(16).padStart(2, '0')).join('')}`;
}

/** `#rrggbb` → `rgb(R,G,B)`. */
export function hexToRgb(hex: string): string {
  const n = (i: number) => parseInt(hex.slice(i, i + 2), 16);
  return `rgb(${n(1)},${n(3)},${n(5)})`;
}

const set = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '' && v !== undefined)) as T;

/** The `data` of the form's type, in the shape qr/add and qr/:id/update take. */
export function formData(f: QrForm): CreateQrBody['data'] {
  switch (f.type) {
    case 'link':
      return f.link.trim();
    case 'text':
      return f.text;
    case 'phone':
      return f.phone.trim();
    case 'email':
      return set({ email: f.email.trim(), subject: f.subject, body: f.body });
    case 'sms':
      return set({ phone: f.smsPhone.trim(), message: f.smsMessage });
    case 'wifi':
      return {
        ...set({ ssid: f.ssid, pass: f.encryption === 'nopass' ? '' : f.pass }),
        encryption: f.encryption,
        hidden: f.hidden,
      } as WifiData;
    case 'vcard':
      return set(f.vcard) as VcardData;
  }
}

/** The body of `POST /api/qr/add`. */
export function createBody(f: QrForm): CreateQrBody {
  return {
    type: f.type,
    data: formData(f),
    name: f.name,
    foreground: hexToRgb(f.foreground),
    background: hexToRgb(f.background),
    ...(f.logo.trim() ? { logo: f.logo.trim() } : {}),
  } as CreateQrBody;
}

/**
 * The body of `PUT /api/qr/:id/update`: the content and name always; the colours and the logo
 * only when they changed (sending them renders the image again).
 */
export function updateBody(f: QrForm, was: QrDetails): UpdateQrBody {
  const body: UpdateQrBody = { data: formData(f) as UpdateQrBody['data'], name: f.name };
  const fg = hexToRgb(f.foreground);
  const bg = hexToRgb(f.background);
  if (fg !== was.foreground) body.foreground = fg;
  if (bg !== was.background) body.background = bg;
  if (f.logo.trim() !== (was.logo ?? '')) body.logo = f.logo.trim();
  return body;
}

/** The form filled from a saved code (`details`, its data in canonical form). */
export function formFromDetails(d: QrDetails): QrForm {
  const f: QrForm = {
    ...EMPTY_FORM,
    type: d.type,
    name: d.name,
    foreground: rgbToHex(d.foreground) ?? EMPTY_FORM.foreground,
    background: rgbToHex(d.background) ?? EMPTY_FORM.background,
    logo: d.logo ?? '',
  };
  const data: unknown = d.data;
  const obj = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (d.type) {
    case 'link':
      return { ...f, link: str(data) };
    case 'text':
      return { ...f, text: str(data) };
    case 'phone':
      return { ...f, phone: str(data) };
    case 'email':
      return typeof data === 'string'
        ? { ...f, email: data }
        : { ...f, email: str(obj.email), subject: str(obj.subject), body: str(obj.body) };
    case 'sms':
      return { ...f, smsPhone: str(obj.phone), smsMessage: str(obj.message) };
    case 'wifi': {
      const pass = str(obj.pass) || str(obj.password);
      const encryption = (str(obj.encryption) || (pass ? 'WPA' : 'nopass')) as Encryption;
      return { ...f, ssid: str(obj.ssid), pass, encryption, hidden: obj.hidden === true };
    }
    case 'vcard':
      return {
        ...f,
        vcard: Object.fromEntries(VCARD_FIELDS.map(({ key }) => [key, str(obj[key])])),
      };
  }
}
