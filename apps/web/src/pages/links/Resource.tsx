/**
 * One page for every resource the API manages the same way (campaigns, channels, pixels, CTA
 * overlays, splash pages, branded domains): the list a page at a time (`page`, `limit`), "New …"
 * opening a form built from a description of the fields, "Edit" on each entry opening the same
 * form filled in, "Delete" asking first (ConfirmButton), and the API's errors next to the field
 * they name. A page describes its resource (`ResourceSpec`) and adds its own widgets per entry
 * (`extra`: assigning a link, verifying a domain) where it needs them.
 */
import { FormEvent, ReactNode, useEffect, useId, useRef, useState } from 'react';

import { ApiError } from '../../api';
import {
  ConfirmButton,
  Field,
  FormError,
  LoadState,
  PageHead,
  Pager,
  toApiError,
  useFocusLater,
  useLoad,
} from '../../ui';
import '../resources.css';

/** A form's values by the API's field names (numbers as typed, converted by the page). */
export type Values = Record<string, string | boolean>;

/** One control of a resource's form, named as the API names the field. */
export interface FieldSpec {
  /** the API's field name: errors naming it show under this control */
  name: string;
  label: string;
  kind: 'text' | 'url' | 'textarea' | 'select' | 'checkbox' | 'color' | 'number';
  options?: ReadonlyArray<{ value: string; label: string }>;
  hint?: ReactNode;
  required?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  placeholder?: string;
  /** the value of a new entry's form ('' / false when absent) */
  initial?: string | boolean;
  /** shown only when creating (the API cannot change it afterwards) */
  createOnly?: boolean;
}

/** A page of a list route, whatever its collection key. */
export interface ResourcePage<T> {
  items: T[];
  result: number;
  currentpage: number;
  maxpage: number;
}

/** What a resource page needs to know about its resource. */
export interface ResourceSpec<T extends { id: number }> {
  /** the page's `<h1>` ("Campaigns") */
  title: string;
  /** one entry, lower case ("campaign"): "New campaign", "Campaign created." */
  noun: string;
  /** a sentence under the heading saying what the resource is for */
  intro?: ReactNode;
  fields: FieldSpec[];
  list: (query: { page: number; limit: number }) => Promise<ResourcePage<T>>;
  /** the entry's name, as its heading and in the buttons' accessible names */
  name: (item: T) => string;
  /** the entry's details under its name */
  details?: (item: T) => ReactNode;
  /** the form's values for editing `item` (a page may load the full entry: `GET …/:id`) */
  values: (item: T) => Values | Promise<Values>;
  create: (values: Values) => Promise<unknown>;
  update: (id: number, values: Values) => Promise<unknown>;
  remove: (id: number) => Promise<unknown>;
  /** the entry's own widgets (assign a link, verify): `reload` refreshes the list */
  extra?: (item: T, reload: () => Promise<void>) => ReactNode;
  /** what the empty list says */
  empty?: string;
  /** what is announced once an entry is created (default: "Campaign created.") */
  created?: string;
}

const PER_PAGE = 10;

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The text of a value (`Values` hold strings and booleans). */
export const text = (v: Values, name: string): string => {
  const value = v[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** A checkbox's value. */
export const flag = (v: Values, name: string): boolean => v[name] === true;

/** The initial values of a new entry's form. */
function initialValues(fields: FieldSpec[]): Values {
  const values: Values = {};
  for (const f of fields) values[f.name] = f.initial ?? (f.kind === 'checkbox' ? false : '');
  return values;
}

/** The control of one field (the label, error and hint come from `Field`). */
function Control(props: {
  spec: FieldSpec;
  value: string | boolean;
  onChange: (value: string | boolean) => void;
  /** set by Field: the control's id, aria-invalid and aria-describedby */
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const { spec, value } = props;
  const common = {
    id: props.id,
    'aria-invalid': props['aria-invalid'],
    'aria-describedby': props['aria-describedby'],
    name: spec.name,
    required: spec.required,
  };
  const str = typeof value === 'string' ? value : '';
  switch (spec.kind) {
    case 'textarea':
      return (
        <textarea
          {...common}
          rows={4}
          maxLength={spec.maxLength}
          value={str}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
    case 'select':
      return (
        <select {...common} value={str} onChange={(e) => props.onChange(e.target.value)}>
          {spec.options?.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'checkbox':
      return (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(e) => props.onChange(e.target.checked)}
        />
      );
    default:
      return (
        <input
          {...common}
          type={spec.kind}
          inputMode={spec.kind === 'url' ? 'url' : spec.kind === 'number' ? 'numeric' : undefined}
          maxLength={spec.maxLength}
          min={spec.min}
          max={spec.max}
          placeholder={spec.placeholder}
          value={str}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
  }
}

/**
 * The create / edit form of a resource: its fields, "Save", "Cancel", the API's error by its field
 * (the field gets the focus) or above the buttons.
 */
export function ResourceForm(props: {
  id?: string;
  label: string;
  fields: FieldSpec[];
  initial: Values;
  submitLabel: string;
  onSubmit: (values: Values) => Promise<void>;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Values>(props.initial);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const formError = useRef<HTMLDivElement>(null);
  const names = props.fields.map((f) => f.name);

  useEffect(() => {
    form.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, []);
  useEffect(() => {
    // the field the API named, else the form's error
    if (error)
      (
        form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? formError.current
      )?.focus();
  }, [error]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await props.onSubmit(values);
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  };

  return (
    <form
      id={props.id}
      ref={form}
      className="card res-form"
      aria-label={props.label}
      onSubmit={submit}
      noValidate
    >
      <div className="grid-2">
        {props.fields.map((f) => (
          <Field
            key={f.name}
            label={f.label}
            names={[f.name]}
            error={error}
            hint={f.hint}
            className={`res-${f.kind}${f.kind === 'textarea' ? ' res-wide' : ''}`}
          >
            <Control
              spec={f}
              value={values[f.name] ?? ''}
              onChange={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
            />
          </Field>
        ))}
      </div>
      <div tabIndex={-1} ref={formError}>
        <FormError error={error} names={names} />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {props.submitLabel}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Text for people only: a visually hidden part of a button's name ("Edit" + " Spring sale"). */
export function Hidden(props: { children: ReactNode }) {
  return <span className="visually-hidden">{props.children}</span>;
}

/** One entry of the list: its name and details, "Edit" (the form in place), "Delete", extras. */
function Entry<T extends { id: number }>(props: {
  spec: ResourceSpec<T>;
  item: T;
  reload: () => Promise<void>;
  onDeleted: (name: string) => void;
}) {
  const { spec, item } = props;
  const name = spec.name(item);
  const [editing, setEditing] = useState<Values | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);
  const [saved, setSaved] = useState(false);
  const { ref: editButton, focusLater: focusEdit } = useFocusLater<HTMLButtonElement>();
  const headingId = useId();
  const editFields = spec.fields.filter((f) => !f.createOnly);

  const edit = async () => {
    setError(null);
    setSaved(false);
    setLoading(true);
    try {
      setEditing(await spec.values(item));
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setLoading(false);
    }
  };
  const close = () => {
    setEditing(null);
    focusEdit();
  };

  return (
    <li className="res-item card" aria-labelledby={headingId}>
      <h2 id={headingId} className="res-name">
        {name}
      </h2>
      {editing ? (
        <ResourceForm
          label={`Edit ${name}`}
          fields={editFields}
          initial={editing}
          submitLabel="Save"
          onCancel={close}
          onSubmit={async (values) => {
            await spec.update(item.id, values);
            setSaved(true);
            close();
            await props.reload();
          }}
        />
      ) : (
        <>
          {spec.details && <div className="res-details">{spec.details(item)}</div>}
          <div className="actions">
            <button type="button" ref={editButton} onClick={edit} disabled={loading}>
              Edit<Hidden> {name}</Hidden>
            </button>
            <ConfirmButton
              confirmLabel={`Confirm deleting ${name}`}
              action={async () => {
                setError(null);
                try {
                  await spec.remove(item.id);
                  props.onDeleted(name);
                } catch (err) {
                  setError(toApiError(err));
                }
              }}
            >
              Delete<Hidden> {name}</Hidden>
            </ConfirmButton>
          </div>
          {saved && (
            <p role="status" className="hint">
              Saved.
            </p>
          )}
          {spec.extra?.(item, props.reload)}
        </>
      )}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
    </li>
  );
}

/** The page of a resource: heading, "New …", the list a page at a time. */
export function ResourcePage<T extends { id: number }>(props: { spec: ResourceSpec<T> }) {
  const { spec } = props;
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [status, setStatus] = useState('');
  const { ref: newButton, focusLater: focusNew } = useFocusLater<HTMLButtonElement>();
  const listHead = useRef<HTMLParagraphElement>(null);
  const formId = useId();
  const loaded = useLoad(() => spec.list({ page, limit: PER_PAGE }), [page, spec]);
  const data = loaded.data;

  // a page emptied by a deletion: show the one before
  useEffect(() => {
    if (data && data.items.length === 0 && page > 1) setPage(Math.min(page - 1, data.maxpage));
  }, [data, page]);

  const closeForm = () => {
    setCreating(false);
    focusNew();
  };

  return (
    <>
      <PageHead title={spec.title}>
        <button
          type="button"
          ref={newButton}
          className="primary"
          aria-expanded={creating}
          aria-controls={creating ? formId : undefined}
          onClick={() => {
            setStatus('');
            setCreating((c) => !c);
          }}
        >
          New {spec.noun}
        </button>
      </PageHead>
      {spec.intro && <p className="hint res-intro">{spec.intro}</p>}
      {creating && (
        <ResourceForm
          id={formId}
          label={`New ${spec.noun}`}
          fields={spec.fields}
          initial={initialValues(spec.fields)}
          submitLabel="Create"
          onCancel={closeForm}
          onSubmit={async (values) => {
            await spec.create(values);
            setStatus(spec.created ?? `${capital(spec.noun)} created.`);
            closeForm();
            if (page !== 1) setPage(1);
            else await loaded.reload();
          }}
        />
      )}
      <p role="status" className="res-status">
        {status}
      </p>
      <LoadState loaded={loaded} what={spec.title.toLowerCase()} />
      {data && (
        <section aria-label={`Your ${spec.title.toLowerCase()}`}>
          <p ref={listHead} tabIndex={-1} className="hint">
            {data.result === 0
              ? (spec.empty ?? `No ${spec.title.toLowerCase()} yet.`)
              : `${data.result} ${data.result === 1 ? spec.noun : spec.title.toLowerCase()}`}
          </p>
          <ul className="res-list">
            {data.items.map((item) => (
              <Entry
                key={item.id}
                spec={spec}
                item={item}
                reload={loaded.reload}
                onDeleted={async (name) => {
                  await loaded.reload();
                  setStatus(`${capital(spec.noun)} “${name}” deleted.`);
                  listHead.current?.focus();
                }}
              />
            ))}
          </ul>
          <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />
        </section>
      )}
    </>
  );
}
