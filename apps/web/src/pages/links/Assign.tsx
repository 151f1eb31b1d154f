/**
 * Putting an item into a group (a link into a campaign; a link, bio page or QR code into a
 * channel): "Assign a link" opens a small form to pick the item (links found by searching
 * `GET /api/urls?q=`, bio pages and QR codes from their lists), then "Assign".
 */
import { FormEvent, useEffect, useId, useRef, useState } from 'react';

import { ApiError, call, client } from '../../api';
import { Field, FormError, toApiError, useFocusLater } from '../../ui';

export type ItemType = 'links' | 'bio' | 'qr';

const NOUN: Record<ItemType, string> = { links: 'Link', bio: 'Bio page', qr: 'QR code' };

interface Option {
  id: number;
  label: string;
}

/** Up to `limit` items of a type, as options (links: those matching `q`). */
async function findItems(type: ItemType, q: string): Promise<Option[]> {
  if (type === 'links') {
    const { data } = await call(client.GET('/api/urls', { params: { query: { q, limit: 20 } } }));
    return data.urls.map((l) => ({ id: l.id, label: `${l.shorturl} — ${l.title || l.longurl}` }));
  }
  if (type === 'bio') {
    const { data } = await call(client.GET('/api/bio', { params: { query: { limit: 100 } } }));
    return data.bios.map((b) => ({ id: b.id, label: `${b.name} — ${b.url}` }));
  }
  const { data } = await call(client.GET('/api/qr', { params: { query: { limit: 100 } } }));
  return data.qrs.map((c) => ({ id: c.id, label: `${c.name} — ${c.link}` }));
}

/**
 * "Assign a …" and its form. `assign` calls the API; `onAssigned` follows a success (a list to
 * reload). The result is announced (`role="status"`), a failure shown as an alert.
 */
export function AssignItem(props: {
  /** whose item it becomes, for the accessible names: "Spring sale" */
  to: string;
  types: ItemType[];
  assign: (type: ItemType, id: number) => Promise<{ message?: string }>;
  onAssigned?: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [type, setType] = useState<ItemType>(props.types[0]);
  const [query, setQuery] = useState('');
  const [options, setOptions] = useState<Option[] | null>(null);
  const [selected, setSelected] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const { ref: toggle, focusLater: focusToggle } = useFocusLater<HTMLButtonElement>();
  const first = useRef<HTMLElement | null>(null);
  const formId = useId();
  const title =
    props.types.length === 1 ? `Assign a ${NOUN[type].toLowerCase()}` : 'Assign an item';

  const load = async (t: ItemType, q: string) => {
    setError(null);
    setStatus('');
    try {
      const found = await findItems(t, q);
      setOptions(found);
      setSelected(found.length ? String(found[0].id) : '');
    } catch (err) {
      setError(toApiError(err));
    }
  };

  useEffect(() => {
    if (!open) return;
    first.current?.focus();
    if (type !== 'links') void load(type, '');
  }, [open, type]);

  const search = (e: FormEvent) => {
    e.preventDefault();
    void load(type, query.trim());
  };

  const assign = async () => {
    if (!selected) return;
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      const answer = await props.assign(type, Number(selected));
      setStatus(answer.message || 'Assigned.');
      props.onAssigned?.();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const noun = NOUN[type];
  return (
    <div className="res-extra">
      <button
        type="button"
        ref={toggle}
        aria-expanded={open}
        aria-controls={open ? formId : undefined}
        onClick={() => {
          setOpen(!open);
          if (open) focusToggle();
        }}
      >
        {title}
        <span className="visually-hidden"> to {props.to}</span>
      </button>
      {open && (
        <form id={formId} onSubmit={search} aria-label={`${title} to ${props.to}`}>
          {props.types.length > 1 && (
            <Field label="Item type">
              <select
                ref={(el) => {
                  first.current = el;
                }}
                value={type}
                onChange={(e) => {
                  setOptions(null);
                  setSelected('');
                  setType(e.target.value as ItemType);
                }}
              >
                {props.types.map((t) => (
                  <option key={t} value={t}>
                    {NOUN[t]}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {type === 'links' && (
            <div className="res-inline">
              <Field label="Find a link" hint="Part of its URL, alias or title; empty: the newest.">
                <input
                  type="search"
                  ref={(el) => {
                    if (props.types.length === 1) first.current = el;
                  }}
                  value={query}
                  onChange={(e) => setQuery(e.target.value)}
                />
              </Field>
              <button type="submit">Search</button>
            </div>
          )}
          {options &&
            (options.length ? (
              <div className="res-inline">
                <Field label={noun}>
                  <select value={selected} onChange={(e) => setSelected(e.target.value)}>
                    {options.map((o) => (
                      <option key={o.id} value={o.id}>
                        {o.label}
                      </option>
                    ))}
                  </select>
                </Field>
                <button type="button" className="primary" disabled={busy} onClick={assign}>
                  Assign
                </button>
              </div>
            ) : (
              <p className="hint" role="status">
                {type === 'links'
                  ? 'No link matches this search.'
                  : `No ${noun.toLowerCase()}s yet.`}
              </p>
            ))}
          <FormError error={error} />
          <p role="status" className="res-status">
            {status}
          </p>
        </form>
      )}
    </div>
  );
}
