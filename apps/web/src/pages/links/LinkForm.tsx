import { FormEvent, ReactNode, useEffect, useId, useRef, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
import {
  Field,
  fieldMatches,
  FormError,
  toApiError,
  useLoad,
  toApiDateTime,
  toLocalInput,
} from '../../ui';
import '../links.css';

/**
 * The form of a short link, for "New link" (`POST /api/url/add`) and a link's "Edit"
 * (`PUT /api/url/:id/update`): the destination, then every option of the API behind "More
 * options" (alias, branded domain, title, social preview, password, expiry, click limit,
 * targeting rules, deep links, parameters, redirect type, pixels, campaign, channel, status).
 * The API's errors show next to the field they name, nested names included (`geotarget[0].link`).
 */

type Details = Schemas['LinkDetailsView'];
type CreateBody = Schemas['CreateLinkDto'];
type UpdateBody = Schemas['UpdateLinkDto'];
type Device = Schemas['DeviceTargetDto']['device'];

const DEVICES: Device[] = [
  'iphone',
  'ipad',
  'android',
  'windows',
  'macos',
  'linux',
  'chromeos',
  'mobile',
  'tablet',
  'desktop',
];
const DEVICE_NAMES: Record<Device, string> = {
  iphone: 'iPhone',
  ipad: 'iPad',
  android: 'Android',
  windows: 'Windows',
  macos: 'macOS',
  linux: 'Linux',
  chromeos: 'ChromeOS',
  mobile: 'Any mobile phone',
  tablet: 'Any tablet',
  desktop: 'Any desktop computer',
};

/** ISO 3166-1 alpha-2 codes (what `geotarget[].location` stores). */
const COUNTRY_CODES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'.split(
    ' ',
  );
/** ISO 639-1 codes (what `languagetarget[].language` takes). */
const LANGUAGE_CODES =
  'aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'.split(
    ' ',
  );

/** Code → name in the reader's language (Intl), sorted by name. */
function named(
  codes: string[],
  type: 'region' | 'language',
): Array<{ code: string; name: string }> {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames(undefined, { type });
  } catch {
    names = null;
  }
  return codes
    .map((code) => {
      const name = names?.of(code) ?? code;
      return { code, name: name === code ? code : `${name} (${code})` };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

let countries: Array<{ code: string; name: string }> | null = null;
let languages: Array<{ code: string; name: string }> | null = null;

interface Rule {
  uid: number;
  /** location, device or language */
  key: string;
  link: string;
}
interface Param {
  uid: number;
  name: string;
  value: string;
}

/** What the form holds: strings as the controls hold them, turned into a body on submit. */
interface State {
  url: string;
  custom: string;
  domain: string;
  title: string;
  description: string;
  type: string;
  expiry: string;
  password: string;
  removePassword: boolean;
  status: 'public' | 'private';
  clicklimit: string;
  expirationredirect: string;
  fallbackurl: string;
  metatitle: string;
  metadescription: string;
  metaimage: string;
  forwardquery: boolean;
  geotarget: Rule[];
  devicetarget: Rule[];
  languagetarget: Rule[];
  apple: string;
  google: string;
  parameters: Param[];
  campaign: string;
  channel: string;
  pixels: number[];
}

let uids = 0;
const uid = () => ++uids;

function stateOf(d?: Details): State {
  return {
    url: d?.longurl ?? '',
    custom: d?.alias ?? '',
    domain: d?.domain ?? '',
    title: d?.title ?? '',
    description: d?.description ?? '',
    type: d ? (d.type === 'overlay' && d.overlay ? `overlay:${d.overlay}` : d.type) : 'direct',
    expiry: toLocalInput(d?.expiry ?? null),
    password: '',
    removePassword: false,
    // a flagged link's details say `flagged` instead of its visibility: left as it is unless changed
    status: d?.status === 'private' ? 'private' : 'public',
    clicklimit: d?.clicklimit ? String(d.clicklimit) : '',
    expirationredirect: d?.expirationredirect ?? '',
    fallbackurl: d?.fallbackurl ?? '',
    metatitle: d?.metatitle ?? '',
    metadescription: d?.metadescription ?? '',
    metaimage: d?.metaimage ?? '',
    forwardquery: d?.forwardquery ?? false,
    geotarget: (d?.geotarget ?? []).map((r) => ({ uid: uid(), key: r.location, link: r.link })),
    devicetarget: (d?.devicetarget ?? []).map((r) => ({ uid: uid(), key: r.device, link: r.link })),
    languagetarget: (d?.languagetarget ?? []).map((r) => ({
      uid: uid(),
      key: r.language,
      link: r.link,
    })),
    apple: d?.deeplink?.apple ?? '',
    google: d?.deeplink?.google ?? '',
    parameters: (d?.parameters ?? []).map((p) => ({ uid: uid(), name: p.name, value: p.value })),
    campaign: d?.campaign ? String(d.campaign) : '',
    channel: '',
    pixels: [...(d?.pixels ?? [])].sort((a, b) => a - b),
  };
}

const typeOf = (value: string): CreateBody['type'] =>
  value.startsWith('overlay:')
    ? Number(value.slice('overlay:'.length))
    : (value as 'direct' | 'frame' | 'splash' | 'overlay');

/**
 * Every field as `url/update` takes it (`null` = none). A creation leaves the empty ones out;
 * an update sends those that differ from what the link had.
 */
function fullBody(s: State): UpdateBody {
  const text = (v: string) => (v.trim() === '' ? null : v.trim());
  const deeplink: Schemas['DeepLinkDto'] = {};
  if (s.apple.trim()) deeplink.apple = s.apple.trim();
  if (s.google.trim()) deeplink.google = s.google.trim();
  return {
    url: s.url.trim(),
    custom: s.custom.trim(),
    domain: text(s.domain),
    title: s.title,
    description: s.description,
    type: typeOf(s.type),
    expiry: toApiDateTime(s.expiry) ?? null,
    status: s.status,
    clicklimit: s.clicklimit.trim() === '' ? null : Number(s.clicklimit),
    expirationredirect: text(s.expirationredirect),
    fallbackurl: text(s.fallbackurl),
    metatitle: text(s.metatitle),
    metadescription: text(s.metadescription),
    metaimage: text(s.metaimage),
    forwardquery: s.forwardquery,
    geotarget: s.geotarget.length
      ? s.geotarget.map((r) => ({ location: r.key, link: r.link.trim() }))
      : null,
    devicetarget: s.devicetarget.length
      ? s.devicetarget.map((r) => ({ device: r.key as Device, link: r.link.trim() }))
      : null,
    languagetarget: s.languagetarget.length
      ? s.languagetarget.map((r) => ({ language: r.key, link: r.link.trim() }))
      : null,
    deeplink: deeplink.apple || deeplink.google ? deeplink : null,
    parameters: s.parameters.length
      ? s.parameters.map((p) => ({ name: p.name.trim(), value: p.value }))
      : null,
    campaign: s.campaign ? Number(s.campaign) : null,
    channel: s.channel ? Number(s.channel) : undefined,
    pixels: s.pixels,
  };
}

/** The body of `url/add`: the fields that hold something. */
function createBody(s: State): CreateBody {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fullBody(s))) {
    if (v === null || v === undefined || v === '') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (k === 'type' && v === 'direct') continue;
    if (k === 'status' && v === 'public') continue;
    if (k === 'forwardquery' && v === false) continue;
    body[k] = v;
  }
  if (s.password) body.password = s.password;
  return body as CreateBody;
}

/** The body of `url/update`: what changed since `initial`, and the password when one is set. */
function updateBody(initial: State, s: State): UpdateBody {
  const before = fullBody(initial) as Record<string, unknown>;
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fullBody(s))) {
    if (v === undefined) continue;
    if (JSON.stringify(v) !== JSON.stringify(before[k])) body[k] = v;
  }
  if (s.removePassword) body.password = '';
  else if (s.password) body.password = s.password;
  return body as UpdateBody;
}

/** Every name of the API a field of this form shows (the rest goes to the form's error). */
const FIELD_NAMES = [
  'url',
  'custom',
  'domain',
  'title',
  'description',
  'type',
  'expiry',
  'password',
  'status',
  'clicklimit',
  'expirationredirect',
  'fallbackurl',
  'metatitle',
  'metadescription',
  'metaimage',
  'forwardquery',
  'geotarget',
  'devicetarget',
  'languagetarget',
  'deeplink',
  'parameters',
  'campaign',
  'channel',
  'pixels',
];

/** Every item of a paginated list route (100 a page, the most the api gives). */
async function everyPage<T>(
  load: (page: number) => Promise<{ data: { maxpage: number } & Record<string, unknown> }>,
  key: string,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= 20; page++) {
    const { data } = await load(page);
    items.push(...((data[key] as T[] | undefined) ?? []));
    if (page >= data.maxpage) break;
  }
  return items;
}

const q = (page: number) => ({ params: { query: { limit: 100, page } } });

/** What the selects offer: the user's domains, overlays, splash pages, pixels, campaigns, channels. */
export function useChoices() {
  return useLoad(async () => {
    const [domains, overlays, splash, pixels, campaigns, channels] = await Promise.all([
      everyPage<Schemas['DomainView']>((p) => call(client.GET('/api/domains', q(p))), 'domains'),
      everyPage<Schemas['OverlayView']>((p) => call(client.GET('/api/overlay', q(p))), 'cta'),
      everyPage<Schemas['SplashView']>((p) => call(client.GET('/api/splash', q(p))), 'splash'),
      everyPage<Schemas['PixelView']>((p) => call(client.GET('/api/pixels', q(p))), 'pixels'),
      everyPage<Schemas['CampaignView']>(
        (p) => call(client.GET('/api/campaigns', q(p))),
        'campaigns',
      ),
      everyPage<Schemas['ChannelView']>((p) => call(client.GET('/api/channels', q(p))), 'channels'),
    ]);
    return { domains, overlays, splash, pixels, campaigns, channels };
  }, []);
}

/** A list-level error (`geotarget: must be an array`, exactly that name) inside its fieldset. */
function ListError(props: { error: ApiError | null; name: string }) {
  if (!props.error || props.error.field !== props.name) return null;
  return (
    <p className="error" role="alert">
      {props.error.message}
    </p>
  );
}

/** Targeting rules of one kind: rows of a select and a URL, added and removed. */
function RuleRows(props: {
  legend: string;
  name: 'geotarget' | 'devicetarget' | 'languagetarget';
  /** "country", "device", "language" */
  noun: string;
  keyName: 'location' | 'device' | 'language';
  options: Array<{ code: string; name: string }>;
  rules: Rule[];
  onChange: (rules: Rule[]) => void;
  error: ApiError | null;
  hint: string;
}) {
  const addRef = useRef<HTMLButtonElement>(null);
  const set = (i: number, patch: Partial<Rule>) =>
    props.onChange(props.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const legendId = useId();
  return (
    <fieldset className="rules" aria-describedby={legendId}>
      <legend>{props.legend}</legend>
      <p id={legendId} className="hint">
        {props.hint}
      </p>
      <ListError error={props.error} name={props.name} />
      {props.rules.map((r, i) => (
        <div className="rule" key={r.uid}>
          <Field
            label={`${cap(props.noun)} of rule ${i + 1}`}
            names={[`${props.name}[${i}].${props.keyName}`]}
            error={props.error}
          >
            <select value={r.key} onChange={(e) => set(i, { key: e.target.value })}>
              {!props.options.some((o) => o.code === r.key) && (
                <option value={r.key}>{r.key}</option>
              )}
              {props.options.map((o) => (
                <option key={o.code} value={o.code}>
                  {o.name}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={`Link of ${props.noun} rule ${i + 1}`}
            names={[`${props.name}[${i}].link`, `${props.name}[${i}]`]}
            error={props.error}
          >
            <input
              type="url"
              inputMode="url"
              placeholder="https://example.com/"
              value={r.link}
              onChange={(e) => set(i, { link: e.target.value })}
            />
          </Field>
          <button
            type="button"
            className="remove"
            aria-label={`Remove ${props.noun} rule ${i + 1}`}
            onClick={() => {
              props.onChange(props.rules.filter((_, j) => j !== i));
              addRef.current?.focus();
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        ref={addRef}
        onClick={() =>
          props.onChange([
            ...props.rules,
            { uid: uid(), key: props.options[0]?.code ?? '', link: '' },
          ])
        }
      >
        Add {props.noun} rule
      </button>
    </fieldset>
  );
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A group of options inside "More options". */
function Group(props: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="group">
      <legend>{props.legend}</legend>
      {props.children}
    </fieldset>
  );
}

export interface LinkFormProps {
  /** the link being edited; none for a new link */
  link?: Details;
  /** the form's id (for the button's aria-controls) */
  id?: string;
  /** after a success: the id and short URL of the link */
  onDone: (result: { id: number; shorturl: string }) => void;
  onCancel: () => void;
}

export function LinkForm(props: LinkFormProps) {
  const editing = props.link !== undefined;
  const [initial] = useState(() => stateOf(props.link));
  const [s, setS] = useState<State>(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [more, setMore] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const urlInput = useRef<HTMLInputElement>(null);
  const choices = useChoices();
  const c = choices.data;

  if (!countries) countries = named(COUNTRY_CODES, 'region');
  if (!languages) languages = named(LANGUAGE_CODES, 'language');

  useEffect(() => urlInput.current?.focus(), []);

  // after an error: the first field it marks, else the destination
  useEffect(() => {
    if (!error) return;
    const invalid = form.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    (invalid ?? urlInput.current)?.focus();
  }, [error]);

  const set = <K extends keyof State>(key: K, value: State[K]) =>
    setS((old) => ({ ...old, [key]: value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (props.link) {
        const body = updateBody(initial, s);
        if (Object.keys(body).length === 0) {
          setError(new ApiError('Nothing to save: no field was changed.', 0));
          return;
        }
        const done = await call(
          client.PUT('/api/url/{id}/update', { params: { path: { id: props.link.id } }, body }),
        );
        props.onDone({ id: done.id, shorturl: done.shorturl });
      } else {
        const done = await call(client.POST('/api/url/add', { body: createBody(s) }));
        props.onDone({ id: done.id, shorturl: done.shorturl });
      }
    } catch (err) {
      const failure = toApiError(err, 'Saving the link failed: try again.');
      // an error in a field of "More options" opens them
      if (failure.field && failure.field !== 'url' && fieldMatches(failure.field, FIELD_NAMES))
        setMore(true);
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const newestSplash = c?.splash.reduce<Schemas['SplashView'] | null>(
    (best, x) => (!best || x.id > best.id ? x : best),
    null,
  );
  const domainKnown = !s.domain || c?.domains.some((d) => d.domain === s.domain);

  return (
    <form
      id={props.id}
      ref={form}
      className="card link-form"
      onSubmit={submit}
      aria-label={editing ? 'Edit link' : 'New link'}
      noValidate
    >
      <Field label="Destination URL" names={['url']} error={error}>
        <input
          ref={urlInput}
          type="url"
          inputMode="url"
          placeholder="https://example.com/page"
          required
          value={s.url}
          onChange={(e) => set('url', e.target.value)}
        />
      </Field>

      <details open={more} onToggle={(e) => setMore(e.currentTarget.open)}>
        <summary>More options</summary>
        {choices.error && (
          <p className="error" role="alert">
            Your domains, overlays, splash pages, pixels, campaigns and channels could not be
            loaded: {choices.error.message}
          </p>
        )}

        <Group legend="Short link">
          <Field
            label="Custom alias"
            names={['custom']}
            error={error}
            hint="3 to 64 letters, digits, _ or -. Empty: a random alias."
          >
            <input
              value={s.custom}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => set('custom', e.target.value)}
            />
          </Field>
          <Field label="Domain" names={['domain']} error={error}>
            <select value={s.domain} onChange={(e) => set('domain', e.target.value)}>
              <option value="">Main domain</option>
              {!domainKnown && <option value={s.domain}>{s.domain}</option>}
              {c?.domains.map((d) => (
                <option key={d.id} value={d.domain}>
                  {d.domain}
                  {d.verified ? '' : ' (not verified)'}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Title" names={['title']} error={error}>
            <input value={s.title} onChange={(e) => set('title', e.target.value)} />
          </Field>
          <Field label="Description" names={['description']} error={error}>
            <textarea
              rows={2}
              value={s.description}
              onChange={(e) => set('description', e.target.value)}
            />
          </Field>
          <Field
            label="Visibility"
            names={['status']}
            error={error}
            hint="Private links are left out of public campaign list pages and bio pages."
          >
            <select
              value={s.status}
              onChange={(e) => set('status', e.target.value as 'public' | 'private')}
            >
              <option value="public">Public</option>
              <option value="private">Private</option>
            </select>
          </Field>
        </Group>

        <Group legend="What visitors see">
          <Field
            label="Redirect type"
            names={['type']}
            error={error}
            hint="A splash page is shown before the destination; an overlay frames it with your call to action."
          >
            <select value={s.type} onChange={(e) => set('type', e.target.value)}>
              <option value="direct">Direct redirect</option>
              <option value="frame">Destination in a frame</option>
              {(newestSplash || s.type === 'splash') && (
                <option value="splash">
                  Splash page{newestSplash ? `: ${newestSplash.name} (your newest)` : ''}
                </option>
              )}
              {s.type === 'overlay' && <option value="overlay">Your newest overlay</option>}
              {c?.overlays.map((o) => (
                <option key={o.id} value={`overlay:${o.id}`}>
                  Overlay: {o.name}
                </option>
              ))}
              {!c?.overlays.length && s.type.startsWith('overlay:') && (
                <option value={s.type}>Overlay {s.type.slice(8)}</option>
              )}
            </select>
          </Field>
          <Field label="Preview title" names={['metatitle']} error={error}>
            <input value={s.metatitle} onChange={(e) => set('metatitle', e.target.value)} />
          </Field>
          <Field label="Preview description" names={['metadescription']} error={error}>
            <textarea
              rows={2}
              value={s.metadescription}
              onChange={(e) => set('metadescription', e.target.value)}
            />
          </Field>
          <Field
            label="Preview image URL"
            names={['metaimage']}
            error={error}
            hint="What social networks and chat apps show when the link is shared."
          >
            <input
              type="url"
              inputMode="url"
              value={s.metaimage}
              onChange={(e) => set('metaimage', e.target.value)}
            />
          </Field>
        </Group>

        <Group legend="Access">
          <Field
            label={editing && props.link?.password ? 'New password' : 'Password'}
            names={['password']}
            error={error}
            hint={
              editing && props.link?.password
                ? 'The link has a password. Empty: keep it.'
                : 'Visitors must enter it first. Empty: none.'
            }
          >
            <input
              type="password"
              autoComplete="new-password"
              value={s.password}
              disabled={s.removePassword}
              onChange={(e) => set('password', e.target.value)}
            />
          </Field>
          {editing && props.link?.password && (
            <div className="check">
              <input
                id={`${props.id ?? 'link'}-nopass`}
                type="checkbox"
                checked={s.removePassword}
                onChange={(e) => set('removePassword', e.target.checked)}
              />
              <label htmlFor={`${props.id ?? 'link'}-nopass`}>Remove the password</label>
            </div>
          )}
          <Field
            label="Expires at"
            names={['expiry']}
            error={error}
            hint="Your local time. Afterwards the link no longer forwards."
          >
            <input
              type="datetime-local"
              value={s.expiry}
              onChange={(e) => set('expiry', e.target.value)}
            />
          </Field>
          <Field
            label="Click limit"
            names={['clicklimit']}
            error={error}
            hint="After this many visits the link behaves as expired."
          >
            <input
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              value={s.clicklimit}
              onChange={(e) => set('clicklimit', e.target.value)}
            />
          </Field>
          <Field
            label="After expiry, send visitors to"
            names={['expirationredirect']}
            error={error}
            hint="Empty: an expired link shows its “gone” page."
          >
            <input
              type="url"
              inputMode="url"
              value={s.expirationredirect}
              onChange={(e) => set('expirationredirect', e.target.value)}
            />
          </Field>
          <Field
            label="If the destination breaks, send visitors to"
            names={['fallbackurl']}
            error={error}
            hint="Used while health checks find the destination down; empty: none."
          >
            <input
              type="url"
              inputMode="url"
              value={s.fallbackurl}
              onChange={(e) => set('fallbackurl', e.target.value)}
            />
          </Field>
        </Group>

        <Group legend="Targeting">
          <RuleRows
            legend="By country"
            name="geotarget"
            noun="country"
            keyName="location"
            options={countries}
            rules={s.geotarget}
            onChange={(r) => set('geotarget', r)}
            error={error}
            hint="Visitors from a country go to its link."
          />
          <RuleRows
            legend="By device"
            name="devicetarget"
            noun="device"
            keyName="device"
            options={DEVICES.map((d) => ({ code: d, name: DEVICE_NAMES[d] }))}
            rules={s.devicetarget}
            onChange={(r) => set('devicetarget', r)}
            error={error}
            hint="Visitors on a device go to the link of the first rule that matches."
          />
          <RuleRows
            legend="By language"
            name="languagetarget"
            noun="language"
            keyName="language"
            options={languages}
            rules={s.languagetarget}
            onChange={(r) => set('languagetarget', r)}
            error={error}
            hint="Visitors go to the link of the first of their browser's languages that has a rule."
          />
          <fieldset className="rules">
            <legend>App deep links</legend>
            <ListError error={error} name="deeplink" />
            <Field
              label="iPhone and iPad app link"
              names={['deeplink.apple']}
              error={error}
              hint="A universal link, itms-apps: or your app's scheme (myapp://…)."
            >
              <input
                value={s.apple}
                spellCheck={false}
                onChange={(e) => set('apple', e.target.value)}
              />
            </Field>
            <Field
              label="Android app link"
              names={['deeplink.google']}
              error={error}
              hint="An app link, market:, intent: or your app's scheme."
            >
              <input
                value={s.google}
                spellCheck={false}
                onChange={(e) => set('google', e.target.value)}
              />
            </Field>
          </fieldset>
        </Group>

        <Group legend="Parameters">
          <ParamRows params={s.parameters} onChange={(p) => set('parameters', p)} error={error} />
          <div className="check">
            <input
              id={`${props.id ?? 'link'}-fwd`}
              type="checkbox"
              checked={s.forwardquery}
              onChange={(e) => set('forwardquery', e.target.checked)}
            />
            <label htmlFor={`${props.id ?? 'link'}-fwd`}>
              Pass the visitor's query string on to the destination
            </label>
          </div>
        </Group>

        <Group legend="Tracking and grouping">
          <fieldset className="rules">
            <legend>Pixels</legend>
            {error && fieldMatches(error.field, ['pixels']) && (
              <p className="error" role="alert">
                {error.message}
              </p>
            )}
            {c && c.pixels.length === 0 && <p className="hint">You have no tracking pixels.</p>}
            {c?.pixels.map((p) => (
              <div className="check" key={p.id}>
                <input
                  id={`${props.id ?? 'link'}-px-${p.id}`}
                  type="checkbox"
                  checked={s.pixels.includes(p.id)}
                  onChange={(e) =>
                    set(
                      'pixels',
                      e.target.checked
                        ? [...s.pixels, p.id].sort((a, b) => a - b)
                        : s.pixels.filter((x) => x !== p.id),
                    )
                  }
                />
                <label htmlFor={`${props.id ?? 'link'}-px-${p.id}`}>
                  {p.name} ({p.type})
                </label>
              </div>
            ))}
          </fieldset>
          <Field label="Campaign" names={['campaign']} error={error}>
            <select value={s.campaign} onChange={(e) => set('campaign', e.target.value)}>
              <option value="">No campaign</option>
              {s.campaign && !c?.campaigns.some((x) => String(x.id) === s.campaign) && (
                <option value={s.campaign}>Campaign {s.campaign}</option>
              )}
              {c?.campaigns.map((x) => (
                <option key={x.id} value={String(x.id)}>
                  {x.name || x.domain || `Campaign ${x.id}`}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={editing ? 'Add to channel' : 'Channel'}
            names={['channel']}
            error={error}
            hint={
              editing && props.link?.channels.length
                ? `In ${props.link.channels
                    .map((id) => c?.channels.find((x) => x.id === id)?.name ?? `channel ${id}`)
                    .join(', ')}.`
                : undefined
            }
          >
            <select value={s.channel} onChange={(e) => set('channel', e.target.value)}>
              <option value="">{editing ? 'No other channel' : 'No channel'}</option>
              {c?.channels
                .filter((x) => !props.link?.channels.includes(x.id))
                .map((x) => (
                  <option key={x.id} value={String(x.id)}>
                    {x.name}
                  </option>
                ))}
            </select>
          </Field>
        </Group>
      </details>

      <FormError error={error} names={FIELD_NAMES} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {editing ? 'Save changes' : 'Create'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Query parameters set on every destination: name/value rows. */
function ParamRows(props: {
  params: Param[];
  onChange: (p: Param[]) => void;
  error: ApiError | null;
}) {
  const addRef = useRef<HTMLButtonElement>(null);
  const set = (i: number, patch: Partial<Param>) =>
    props.onChange(props.params.map((p, j) => (j === i ? { ...p, ...patch } : p)));
  return (
    <fieldset className="rules">
      <legend>Query parameters</legend>
      <p className="hint">Added to every destination (utm_source, utm_campaign, …).</p>
      <ListError error={props.error} name="parameters" />
      {props.params.map((p, i) => (
        <div className="rule" key={p.uid}>
          <Field
            label={`Name of parameter ${i + 1}`}
            names={[`parameters[${i}].name`, `parameters[${i}]`]}
            error={props.error}
          >
            <input
              value={p.name}
              spellCheck={false}
              list="link-form-params"
              onChange={(e) => set(i, { name: e.target.value })}
            />
          </Field>
          <Field
            label={`Value of parameter ${i + 1}`}
            names={[`parameters[${i}].value`]}
            error={props.error}
          >
            <input value={p.value} onChange={(e) => set(i, { value: e.target.value })} />
          </Field>
          <button
            type="button"
            className="remove"
            aria-label={`Remove parameter ${i + 1}`}
            onClick={() => {
              props.onChange(props.params.filter((_, j) => j !== i));
              addRef.current?.focus();
            }}
          >
            Remove
          </button>
        </div>
      ))}
      <datalist id="link-form-params">
        {['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <button
        type="button"
        ref={addRef}
        onClick={() => props.onChange([...props.params, { uid: uid(), name: '', value: '' }])}
      >
        Add parameter
      </button>
    </fieldset>
  );
}
