import { FormEvent, ReactNode, useEffect, useRef, useState } from 'react';

import { ApiError } from '../../api';
import { Field, FormError, toApiError } from '../../ui';
import { ENCRYPTIONS, QR_TYPES, QrForm, QrType, typeName, VCARD_FIELDS, VcardField } from './model';
import { QrPreview } from './QrPreview';

/** Every field name the form shows an error by (the rest go to FormError). */
const SHOWN = ['type', 'name', 'data', 'foreground', 'background', 'logo'];

/**
 * The QR code form (create and edit): the type (fixed once saved), the content of that type, the
 * name and the look (foreground, background, logo), beside a live preview of the picture. The
 * API's errors show by the field they name (`data.ssid` by "Network name", `foreground` by
 * "Foreground colour"…).
 */
export function QrEditor(props: {
  label: string;
  initial: QrForm;
  /** the type can be chosen only on create */
  typeFixed: boolean;
  /** what the picture encodes: the code's short link (a stand-in of the same length when new) */
  encodes: string;
  encodesNote: string;
  submitLabel: string;
  onSubmit: (form: QrForm) => Promise<void>;
  onCancel?: () => void;
  autoFocus?: boolean;
}) {
  const [form, setForm] = useState<QrForm>(props.initial);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLSelectElement & HTMLInputElement>(null);

  useEffect(() => {
    if (props.autoFocus) first.current?.focus();
  }, [props.autoFocus]);

  const put = <K extends keyof QrForm>(key: K, value: QrForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const putVcard = (key: VcardField, value: string) =>
    setForm((f) => ({ ...f, vcard: { ...f.vcard, [key]: value } }));

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const formEl = e.currentTarget;
    try {
      await props.onSubmit(form);
    } catch (err) {
      setError(toApiError(err));
      // the field the message names, else the form's first control
      setTimeout(() => {
        const bad = formEl.querySelector<HTMLElement>('[aria-invalid="true"]');
        (bad ?? first.current)?.focus();
      });
    } finally {
      setBusy(false);
    }
  };

  const text = (
    label: string,
    key: Exclude<keyof QrForm, 'vcard' | 'hidden' | 'type' | 'encryption'>,
    names: string[],
    input: Partial<{ type: string; hint: ReactNode; autoComplete: string; inputMode: string }> = {},
  ) => (
    <Field label={label} names={names} error={error} hint={input.hint}>
      <input
        type={input.type ?? 'text'}
        autoComplete={input.autoComplete ?? 'off'}
        value={form[key]}
        onChange={(e) => put(key, e.target.value)}
      />
    </Field>
  );

  let content: ReactNode;
  switch (form.type) {
    case 'link':
      content = text('Destination URL', 'link', ['data'], {
        type: 'url',
        hint: 'Scanning opens this address (http or https).',
      });
      break;
    case 'text':
      content = (
        <Field label="Text" names={['data']} error={error} hint="1 to 4296 characters.">
          <textarea rows={4} value={form.text} onChange={(e) => put('text', e.target.value)} />
        </Field>
      );
      break;
    case 'phone':
      content = text('Phone number', 'phone', ['data'], {
        type: 'tel',
        hint: '3 to 20 digits, with an optional leading +.',
      });
      break;
    case 'email':
      content = (
        <>
          {text('E-mail address', 'email', ['data.email', 'data'], { type: 'email' })}
          {text('Subject', 'subject', ['data.subject'])}
          <Field label="Message" names={['data.body']} error={error}>
            <textarea rows={3} value={form.body} onChange={(e) => put('body', e.target.value)} />
          </Field>
        </>
      );
      break;
    case 'sms':
      content = (
        <>
          {text('Phone number', 'smsPhone', ['data.phone', 'data'], { type: 'tel' })}
          <Field label="Message" names={['data.message']} error={error}>
            <textarea
              rows={3}
              value={form.smsMessage}
              onChange={(e) => put('smsMessage', e.target.value)}
            />
          </Field>
        </>
      );
      break;
    case 'wifi':
      content = (
        <>
          {text('Network name (SSID)', 'ssid', ['data.ssid', 'data'], {
            hint: '1 to 32 characters.',
          })}
          <Field label="Security" names={['data.encryption']} error={error}>
            <select
              value={form.encryption}
              onChange={(e) => put('encryption', e.target.value as QrForm['encryption'])}
            >
              {ENCRYPTIONS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.name}
                </option>
              ))}
            </select>
          </Field>
          {form.encryption !== 'nopass' &&
            text('Network password', 'pass', ['data.pass', 'data.password'], {
              hint: form.encryption === 'WEP' ? '5 to 64 characters.' : '8 to 64 characters.',
            })}
          <div className="field check">
            <input
              id="qr-wifi-hidden"
              type="checkbox"
              checked={form.hidden}
              onChange={(e) => put('hidden', e.target.checked)}
            />
            <label htmlFor="qr-wifi-hidden">Hidden network</label>
          </div>
        </>
      );
      break;
    case 'vcard':
      content = (
        <>
          <p className="hint">Fill in at least one field.</p>
          <div className="grid-2">
            {VCARD_FIELDS.map((v) => (
              <Field
                key={v.key}
                label={v.label}
                names={v.key === 'fname' ? [`data.${v.key}`, 'data'] : [`data.${v.key}`]}
                error={error}
              >
                <input
                  type={v.input}
                  autoComplete="off"
                  value={form.vcard[v.key] ?? ''}
                  onChange={(e) => putVcard(v.key, e.target.value)}
                />
              </Field>
            ))}
          </div>
        </>
      );
      break;
  }

  return (
    <div className="qr-editor">
      <form className="card qr-form" aria-label={props.label} onSubmit={submit} noValidate>
        {props.typeFixed ? (
          <p>
            <strong>Type:</strong> {typeName(form.type)}{' '}
            <span className="hint">(the type of a saved code cannot change)</span>
          </p>
        ) : (
          <Field label="Type" names={['type']} error={error}>
            <select
              ref={first}
              value={form.type}
              onChange={(e) => {
                put('type', e.target.value as QrType);
                setError(null);
              }}
            >
              {QR_TYPES.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
        )}
        <fieldset>
          <legend>Content</legend>
          {content}
        </fieldset>
        <Field label="Name" names={['name']} error={error} hint="Shown in your list only.">
          <input
            ref={props.typeFixed ? first : undefined}
            value={form.name}
            autoComplete="off"
            onChange={(e) => put('name', e.target.value)}
          />
        </Field>
        <fieldset>
          <legend>Design</legend>
          <div className="qr-colours">
            <Field label="Foreground colour" names={['foreground']} error={error}>
              <input
                type="color"
                value={form.foreground}
                onChange={(e) => put('foreground', e.target.value)}
              />
            </Field>
            <Field label="Background colour" names={['background']} error={error}>
              <input
                type="color"
                value={form.background}
                onChange={(e) => put('background', e.target.value)}
              />
            </Field>
          </div>
          <p className="hint">The two colours need a contrast of at least 2:1 to scan.</p>
          <Field
            label="Logo"
            names={['logo']}
            error={error}
            hint="A PNG or JPEG drawn in the centre: an https:// address, or a file name in the server's assets folder. Leave empty for none."
          >
            <input
              type="text"
              inputMode="url"
              autoComplete="off"
              value={form.logo}
              onChange={(e) => put('logo', e.target.value)}
            />
          </Field>
        </fieldset>
        <FormError error={error} names={SHOWN} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {props.submitLabel}
          </button>
          {props.onCancel && (
            <button type="button" onClick={props.onCancel}>
              Cancel
            </button>
          )}
        </div>
      </form>
      <section className="card qr-side" aria-label="Preview">
        <h2>Preview</h2>
        <QrPreview
          text={props.encodes}
          foreground={form.foreground}
          background={form.background}
          logo={form.logo.trim() !== ''}
          caption={props.encodesNote}
        />
      </section>
    </div>
  );
}
