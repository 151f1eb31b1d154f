import { FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError } from '../../api';
import { Field, fieldMatches, FormError, toApiError } from '../../ui';
import { BioForm, Domain, Network, NETWORKS, newRow, sentKeys, Theme } from './model';
import { BioPreview } from './BioPreview';

/**
 * The bio page form (create and edit): name, address (alias, branded domain), heading,
 * description, avatar, theme, the buttons (add, move, remove) and the social links, beside a live
 * preview drawn from the form. The API's errors show by the field they name (`links[1].url` by
 * the second button's URL, `socials.x` by "X").
 */
export function BioEditor(props: {
  label: string;
  initial: BioForm;
  domains: Domain[];
  /** where the page lives: shown under the alias */
  publicBase: string;
  submitLabel: string;
  onSubmit: (form: BioForm) => Promise<void>;
  onCancel?: () => void;
  autoFocus?: boolean;
}) {
  const [form, setForm] = useState<BioForm>(props.initial);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const focusRow = useRef<number | null>(null);
  const socialsBox = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    if (props.autoFocus) first.current?.focus();
  }, [props.autoFocus]);

  // after "Add button", the new row's title
  useEffect(() => {
    if (focusRow.current === null) return;
    document.getElementById(`bio-link-${focusRow.current}-title`)?.focus();
    focusRow.current = null;
  }, [form.links]);

  const put = <K extends keyof BioForm>(key: K, value: BioForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const putLink = (key: number, part: 'title' | 'url', value: string) =>
    setForm((f) => ({
      ...f,
      links: f.links.map((l) => (l.key === key ? { ...l, [part]: value } : l)),
    }));
  const move = (i: number, by: number) =>
    setForm((f) => {
      const links = [...f.links];
      const [row] = links.splice(i, 1);
      links.splice(i + by, 0, row);
      return { ...f, links };
    });
  const putSocial = (n: Network, value: string) =>
    setForm((f) => ({ ...f, socials: { ...f.socials, [n]: value } }));

  const base = form.domain
    ? (props.domains.find((d) => String(d.id) === form.domain)?.domain ?? props.publicBase)
    : props.publicBase;

  // the index the API names a row by (empty rows are not sent)
  const sent = sentKeys(form);
  const rowNames = (key: number, part: 'title' | 'url') => {
    const i = sent.indexOf(key);
    return i < 0 ? [] : [`links[${i}].${part}`];
  };
  const shown = [
    'name',
    'alias',
    'domain',
    'title',
    'description',
    'avatar',
    'theme',
    ...form.links.flatMap((l) => [...rowNames(l.key, 'title'), ...rowNames(l.key, 'url')]),
    ...NETWORKS.map(([n]) => `socials.${n}`),
  ];

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const formEl = e.currentTarget;
    try {
      await props.onSubmit(form);
    } catch (err) {
      const apiError = toApiError(err);
      setError(apiError);
      if (fieldMatches(apiError.field, ['socials']) && socialsBox.current)
        socialsBox.current.open = true;
      setTimeout(() => {
        const bad = formEl.querySelector<HTMLElement>('[aria-invalid="true"]');
        (bad ?? first.current)?.focus();
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bio-editor">
      <form className="card bio-form" aria-label={props.label} onSubmit={submit} noValidate>
        <Field
          label="Name"
          names={['name']}
          error={error}
          hint="For you; the page shows its title, or this name when untitled."
        >
          <input
            ref={first}
            required
            autoComplete="off"
            value={form.name}
            onChange={(e) => put('name', e.target.value)}
          />
        </Field>
        <fieldset>
          <legend>Address</legend>
          <Field
            label="Alias"
            names={['alias']}
            error={error}
            hint={`The page lives at ${base}/${form.alias.trim() || '…'} (3 to 64 of A–Z, a–z, 0–9, _ and -; made for you when empty).`}
          >
            <input
              autoComplete="off"
              value={form.alias}
              onChange={(e) => put('alias', e.target.value)}
            />
          </Field>
          {props.domains.length > 0 && (
            <Field label="Domain" names={['domain']} error={error}>
              <select value={form.domain} onChange={(e) => put('domain', e.target.value)}>
                <option value="">The service&apos;s own address</option>
                {props.domains.map((d) => (
                  <option key={d.id} value={String(d.id)}>
                    {d.domain}
                    {d.verified ? '' : ' (not verified)'}
                  </option>
                ))}
              </select>
            </Field>
          )}
        </fieldset>
        <fieldset>
          <legend>Header</legend>
          <Field label="Title" names={['title']} error={error} hint="The page's heading.">
            <input
              autoComplete="off"
              value={form.title}
              onChange={(e) => put('title', e.target.value)}
            />
          </Field>
          <Field
            label="Description"
            names={['description']}
            error={error}
            hint="Up to 500 characters."
          >
            <textarea
              rows={3}
              value={form.description}
              onChange={(e) => put('description', e.target.value)}
            />
          </Field>
          <Field
            label="Avatar image URL"
            names={['avatar']}
            error={error}
            hint="An https:// image shown at the top; empty for none."
          >
            <input
              type="url"
              inputMode="url"
              autoComplete="off"
              value={form.avatar}
              onChange={(e) => put('avatar', e.target.value)}
            />
          </Field>
          <Field label="Theme" names={['theme']} error={error}>
            <select value={form.theme} onChange={(e) => put('theme', e.target.value as Theme)}>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </Field>
        </fieldset>
        <fieldset>
          <legend>Buttons</legend>
          <p className="hint">Up to 50, in this order. Empty rows are left out.</p>
          <ol className="bio-rows">
            {form.links.map((l, i) => (
              <li key={l.key} className="bio-row">
                <div className="grid-2">
                  <Field
                    label={`Button ${i + 1} title`}
                    names={rowNames(l.key, 'title')}
                    error={error}
                  >
                    <input
                      id={`bio-link-${l.key}-title`}
                      autoComplete="off"
                      value={l.title}
                      onChange={(e) => putLink(l.key, 'title', e.target.value)}
                    />
                  </Field>
                  <Field label={`Button ${i + 1} URL`} names={rowNames(l.key, 'url')} error={error}>
                    <input
                      type="url"
                      inputMode="url"
                      autoComplete="off"
                      value={l.url}
                      onChange={(e) => putLink(l.key, 'url', e.target.value)}
                    />
                  </Field>
                </div>
                <div className="actions">
                  <button
                    type="button"
                    disabled={i === 0}
                    aria-label={`Move button ${i + 1} up`}
                    onClick={() => move(i, -1)}
                  >
                    Up
                  </button>
                  <button
                    type="button"
                    disabled={i === form.links.length - 1}
                    aria-label={`Move button ${i + 1} down`}
                    onClick={() => move(i, 1)}
                  >
                    Down
                  </button>
                  <button
                    type="button"
                    aria-label={`Remove button ${i + 1}`}
                    onClick={() => {
                      put(
                        'links',
                        form.links.filter((r) => r.key !== l.key),
                      );
                      addButton.current?.focus();
                    }}
                  >
                    Remove
                  </button>
                </div>
              </li>
            ))}
          </ol>
          <button
            type="button"
            ref={addButton}
            disabled={form.links.length >= 50}
            onClick={() => {
              const row = newRow();
              focusRow.current = row.key;
              put('links', [...form.links, row]);
            }}
          >
            Add button
          </button>
          <FormError
            error={error?.field === 'links' || error?.field?.startsWith('links[') ? error : null}
            names={shown}
          />
        </fieldset>
        <details className="bio-socials-box" ref={socialsBox}>
          <summary>
            Social links ({NETWORKS.filter(([n]) => (form.socials[n] ?? '').trim()).length})
          </summary>
          <div className="grid-2">
            {NETWORKS.map(([n, label]) => (
              <Field key={n} label={label} names={[`socials.${n}`]} error={error}>
                <input
                  type="url"
                  inputMode="url"
                  autoComplete="off"
                  placeholder="https://"
                  value={form.socials[n] ?? ''}
                  onChange={(e) => putSocial(n, e.target.value)}
                />
              </Field>
            ))}
          </div>
        </details>
        <FormError
          error={error?.field === 'links' || error?.field?.startsWith('links[') ? null : error}
          names={shown}
        />
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
      <section className="card bio-side" aria-labelledby="bio-preview-h">
        <h2 id="bio-preview-h">Preview</h2>
        <BioPreview form={form} />
      </section>
    </div>
  );
}
