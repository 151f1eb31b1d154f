/**
 * The pieces every page uses, so that pages look and behave alike: a field whose API error shows
 * next to it, the form's other errors, loading a resource, a pager, a sub-navigation, a secret
 * shown once, a confirmation before a deletion. Pages import from here before writing their own.
 */
import {
  cloneElement,
  DependencyList,
  ReactElement,
  ReactNode,
  RefObject,
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';

import { ApiError } from './api';
import { Link } from './router';

/** Any failure as an ApiError (a script error becomes one with its message). */
export function toApiError(err: unknown, fallback = 'Something went wrong: try again.'): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(err instanceof Error && err.message ? err.message : fallback, 0);
}

/**
 * A labelled control. `names` are the API's names for the field (`url`, `expiry`,
 * `geotarget[0].link`, matched exactly or as a prefix followed by `.` or `[`): when `error` names
 * one of them, the control is `aria-invalid` and described by the message shown under it.
 *
 *   <Field label="Destination URL" names={['url']} error={error}>
 *     <input type="url" value={url} onChange={…} />
 *   </Field>
 */
export function Field(props: {
  label: ReactNode;
  names?: string[];
  error?: ApiError | null;
  hint?: ReactNode;
  children: ReactElement<Record<string, unknown>>;
  className?: string;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const mine = props.error && fieldMatches(props.error.field, props.names ?? []);
  const describedBy = [mine ? errorId : null, props.hint ? hintId : null].filter(Boolean);
  const control = cloneElement(props.children, {
    id: (props.children.props.id as string | undefined) ?? id,
    'aria-invalid': mine ? true : undefined,
    'aria-describedby': describedBy.length ? describedBy.join(' ') : undefined,
  });
  return (
    <div className={`field ${props.className ?? ''}`}>
      <label htmlFor={(props.children.props.id as string | undefined) ?? id}>{props.label}</label>
      {control}
      {props.hint && (
        <p id={hintId} className="hint">
          {props.hint}
        </p>
      )}
      {mine && (
        <p id={errorId} className="error" role="alert">
          {props.error!.message}
        </p>
      )}
    </div>
  );
}

/** Whether the API's field name `field` is one of `names` (or inside one: `geo[0].link`). */
export function fieldMatches(field: string | null, names: string[]): boolean {
  if (!field) return false;
  return names.some((n) => field === n || field.startsWith(`${n}.`) || field.startsWith(`${n}[`));
}

/**
 * The errors of one refusal by field: the api names every refused field in one message
 * (`username: …; email: …`), and `ApiError.field` is only the first. `of(name)` is the error to
 * show by that field (its own part of the message), `rest(names)` what no listed field shows.
 */
export function errorsByField(error: ApiError | null) {
  const parts = error
    ? error.message
        .split(/; (?=[A-Za-z][\w.[\]]*: )/)
        .map((part) => new ApiError(part, error.status))
    : [];
  return {
    of: (name: string) => parts.find((p) => fieldMatches(p.field, [name])) ?? null,
    rest: (names: string[]) =>
      error && parts.every((p) => fieldMatches(p.field, names)) ? null : error,
  };
}

/**
 * The form's error that no field of the form shows (`names`: every field name the form shows,
 * so that a message is never shown twice and never lost).
 */
export function FormError(props: { error: ApiError | null; names?: string[] }) {
  if (!props.error || fieldMatches(props.error.field, props.names ?? [])) return null;
  return (
    <p className="error" role="alert">
      {props.error.message}
    </p>
  );
}

/** A page's `<h1>` with its actions beside it. */
export function PageHead(props: { title: string; children?: ReactNode }) {
  return (
    <div className="page-head">
      <h1>{props.title}</h1>
      {props.children && <div className="actions">{props.children}</div>}
    </div>
  );
}

/** The state of a resource loaded from the api: its data, its error, and `reload()`. */
export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Loads `load()` now and whenever `deps` change; `reload()` loads again (after a change). */
export function useLoad<T>(load: () => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  // the caller names what `load` depends on, as with useEffect
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const value = await run();
      if (mine !== latest.current) return;
      setData(value);
      setError(null);
    } catch (err) {
      if (mine === latest.current) setError(toApiError(err));
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }, [run]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}

/** What `Loaded` shows while it loads or when it failed (nothing once it has data). */
/**
 * Focus for an element a state change brings back (a button hidden while its form was open):
 * `focusLater()`, called with that change, moves the focus to `ref`'s element in the render that
 * commits it. A timer instead could fire after someone has tabbed on, or before the element is
 * there.
 */
export function useFocusLater<T extends HTMLElement>(): {
  ref: RefObject<T | null>;
  focusLater: () => void;
} {
  const ref = useRef<T>(null);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    if (asked) ref.current?.focus();
  }, [asked]);
  const focusLater = useCallback(() => setAsked((n) => n + 1), []);
  return { ref, focusLater };
}

export function LoadState(props: { loaded: Loaded<unknown>; what: string }) {
  const { data, error, loading } = props.loaded;
  if (error)
    return (
      <p className="error" role="alert">
        {props.what} could not be loaded: {error.message}
      </p>
    );
  if (loading && data === undefined) return <p aria-busy="true">Loading {props.what}…</p>;
  return null;
}

/** "Previous", "Page n of m", "Next" for a list route's `currentpage` / `maxpage`. */
export function Pager(props: { page: number; maxpage: number; onPage: (page: number) => void }) {
  if (props.maxpage <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span>
        Page {props.page} of {props.maxpage}
      </span>
      <button
        type="button"
        disabled={props.page >= props.maxpage}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next
      </button>
    </nav>
  );
}

/** The sections of an area (the links area's Campaigns, Channels, …), below its heading. */
export function SubNav(props: {
  label: string;
  items: Array<{ to: string; name: string }>;
  current: string;
}) {
  return (
    <nav className="subnav" aria-label={props.label}>
      <ul>
        {props.items.map((item) => (
          <li key={item.to}>
            <Link to={item.to} current={item.to === props.current}>
              {item.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * A secret the api shows once (a new key, a webhook's signing secret): in a read-only box with a
 * "Copy" button, and the warning that it will not be shown again.
 */
export function ShownOnce(props: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="card shown-once" role="status">
      <Field label={props.label} hint="Copy it now: it is not shown again.">
        <input readOnly value={props.value} onFocus={(e) => e.currentTarget.select()} />
      </Field>
      <div className="actions">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        {props.onDone && (
          <button type="button" onClick={props.onDone}>
            Done
          </button>
        )}
      </div>
    </div>
  );
}

/**
 * A button that asks before it acts (a deletion): the first press shows "Confirm" and "Cancel"
 * in its place; `action` runs on "Confirm".
 */
export function ConfirmButton(props: {
  children: ReactNode;
  /** the accessible name of the confirming button, e.g. "Confirm deleting example.com" */
  confirmLabel: string;
  action: () => Promise<void> | void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.children}
      </button>
    );
  return (
    <span className="confirm">
      <button
        type="button"
        ref={confirmRef}
        className="danger"
        aria-label={props.confirmLabel}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.action();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        Confirm
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A date of the api (`2026-11-28 21:05:30` or ISO) for people, in their locale. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value.includes('T') ? value : `${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}

/** The api's `YYYY-MM-DD HH:MM:SS` (UTC) as a `datetime-local` value (the reader's time); '' when none. */
export function toLocalInput(value: string | null): string {
  if (!value) return '';
  const date = new Date(`${value.replace(' ', 'T')}Z`);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}

/**
 * A `datetime-local` value (the reader's time) as the api's date-time: `YYYY-MM-DD HH:MM:SS` in
 * UTC. Empty stays undefined (an optional field); what the browser cannot read is sent as typed,
 * for the api to name.
 */
export function toApiDateTime(local: string): string | undefined {
  const value = local.trim();
  if (!value) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toISOString().slice(0, 19).replace('T', ' ');
}
