import { FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
import {
  ConfirmButton,
  Field,
  FormError,
  formatDate,
  LoadState,
  Pager,
  ShownOnce,
  toApiError,
  useLoad,
  toLocalInput,
} from '../../ui';
import { fromLocalInput, Scope, ScopePicker } from './scopes';

type Key = Schemas['KeyView'];

const PER_PAGE = 20;
const FIELDS = ['name', 'scopes', 'expires'];

/** The fields of a named key, for "New key" and "Edit": name, scopes, optional expiry. */
function KeyFields(props: {
  name: string;
  setName: (v: string) => void;
  scopes: Scope[];
  setScopes: (v: Scope[]) => void;
  expires: string;
  setExpires: (v: string) => void;
  error: ApiError | null;
  nameRef?: React.Ref<HTMLInputElement>;
}) {
  return (
    <>
      <Field label="Key name" names={['name']} error={props.error} hint="What the key is for.">
        <input
          ref={props.nameRef}
          maxLength={64}
          required
          value={props.name}
          onChange={(e) => props.setName(e.target.value)}
        />
      </Field>
      <ScopePicker value={props.scopes} onChange={props.setScopes} error={props.error} />
      <Field
        label="Expires (optional)"
        names={['expires']}
        error={props.error}
        hint="Your local time. Empty: the key does not expire."
      >
        <input
          type="datetime-local"
          value={props.expires}
          onChange={(e) => props.setExpires(e.target.value)}
        />
      </Field>
    </>
  );
}

/** "New key": the form, then the key itself, shown once. */
function NewKey(props: { onCreated: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<{ name: string; key: string } | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const shownRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (open) nameRef.current?.focus();
  }, [open]);
  useEffect(() => {
    if (made) shownRef.current?.querySelector('input')?.focus();
  }, [made]);
  // back on "New key" when the form closes or the shown key is dismissed, in the render that
  // brings the button back (a timer could fire after someone has tabbed on)
  const refocus = useRef(false);
  useEffect(() => {
    if (open || made || !refocus.current) return;
    refocus.current = false;
    openRef.current?.focus();
  }, [open, made]);

  const close = () => {
    refocus.current = true;
    setOpen(false);
    setError(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await call(
        client.POST('/api/key/add', {
          body: { name: name.trim(), scopes, expires: fromLocalInput(expires) },
        }),
      );
      setMade({ name: name.trim(), key: created.key });
      setName('');
      setScopes([]);
      setExpires('');
      setOpen(false);
      await props.onCreated();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      {made && (
        <div ref={shownRef}>
          <ShownOnce
            label={`New key “${made.name}”`}
            value={made.key}
            onDone={() => {
              refocus.current = true;
              setMade(null);
            }}
          />
        </div>
      )}
      {!open && (
        <div className="actions section-actions">
          <button type="button" ref={openRef} className="primary" onClick={() => setOpen(true)}>
            New key
          </button>
        </div>
      )}
      {open && (
        <form
          className="card key-form"
          onSubmit={submit}
          aria-labelledby="new-key-title"
          noValidate
        >
          <h3 id="new-key-title">New key</h3>
          <KeyFields
            name={name}
            setName={setName}
            scopes={scopes}
            setScopes={setScopes}
            expires={expires}
            setExpires={setExpires}
            error={error}
            nameRef={nameRef}
          />
          <FormError error={error} names={FIELDS} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              Create key
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </>
  );
}

/** "Edit" of one key: name, scopes, expiry (empty removes it). */
function EditKey(props: { item: Key; onDone: (message: string | null) => void }) {
  const k = props.item;
  const [name, setName] = useState(k.name);
  const [scopes, setScopes] = useState<Scope[]>(k.scopes);
  const [expires, setExpires] = useState(toLocalInput(k.expires));
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);

  useEffect(() => nameRef.current?.focus(), []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call(
        client.PUT('/api/key/{id}/update', {
          params: { path: { id: k.id } },
          body: { name: name.trim(), scopes, expires: fromLocalInput(expires) },
        }),
      );
      props.onDone(`Key “${name.trim()}” was saved.`);
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  };

  return (
    <form className="card key-form" onSubmit={submit} aria-labelledby="edit-key-title" noValidate>
      <h3 id="edit-key-title">Edit key “{k.name}”</h3>
      <KeyFields
        name={name}
        setName={setName}
        scopes={scopes}
        setScopes={setScopes}
        expires={expires}
        setExpires={setExpires}
        error={error}
        nameRef={nameRef}
      />
      <FormError error={error} names={FIELDS} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Save key
        </button>
        <button type="button" onClick={() => props.onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The workspace's named API keys (`GET /api/keys`, a page at a time): "New key" with a name,
 * scopes and an optional expiry, the key shown once; each listed by its prefix, with "Edit" and
 * "Delete". Only admins and the owner see them (the API answers 403 to the others: shown).
 */
export function Keys() {
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<Key | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const noticeRef = useRef<HTMLParagraphElement>(null);
  // each listed key's "Edit", by key id
  const editRefs = useRef(new Map<number, HTMLButtonElement>());
  // back on the key's "Edit" when its form closes (saved or cancelled), in the render that takes
  // the form away (a timer could fire after someone has tabbed on); the list keeps its rows while
  // it reloads, so the button is there
  const refocusEdit = useRef<number | null>(null);
  useEffect(() => {
    const id = refocusEdit.current;
    if (editing || id === null) return;
    refocusEdit.current = null;
    editRefs.current.get(id)?.focus();
  }, [editing]);
  const loaded = useLoad(
    () =>
      call(
        client.GET('/api/keys', {
          params: { query: { page, limit: PER_PAGE } },
        }),
      ).then((r) => r.data),
    [page],
  );
  const data = loaded.data;
  // the last item of the last page went (a removal): show the page before
  useEffect(() => {
    if (data && data.keys.length === 0 && page > 1) setPage(Math.min(page - 1, data.maxpage));
  }, [data, page]);

  const remove = async (k: Key) => {
    setError(null);
    try {
      await call(
        client.DELETE('/api/key/{id}/delete', {
          params: { path: { id: k.id } },
        }),
      );
      setNotice(`Key “${k.name}” was deleted: it no longer works.`);
      if (editing?.id === k.id) setEditing(null);
      await loaded.reload();
    } catch (err) {
      setError(toApiError(err));
    }
    noticeRef.current?.focus();
  };

  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className="hint">
        Named keys act in this workspace for the member who made them, within their scopes and never
        beyond that member's role. Send one as <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      <NewKey onCreated={loaded.reload} />
      <p ref={noticeRef} role="status" className="notice" tabIndex={-1}>
        {notice}
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <LoadState loaded={loaded} what="API keys" />
      {data && data.keys.length === 0 && <p>No named keys yet.</p>}
      {data && data.keys.length > 0 && (
        <>
          <div className="table-wrap">
            <table className="keys">
              <caption className="visually-hidden">Named API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key begins</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.keys.map((k) => (
                  <tr key={k.id}>
                    <td>
                      {k.name}
                      <br />
                      <span className="meta">made {formatDate(k.date)}</span>
                    </td>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td>
                      <ul className="scope-list">
                        {k.scopes.map((s) => (
                          <li key={s}>
                            <code>{s}</code>
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td>{k.expires ? formatDate(k.expires) : 'never'}</td>
                    <td>{k.lastused ? formatDate(k.lastused) : 'never'}</td>
                    <td>
                      <div className="actions">
                        <button
                          type="button"
                          ref={(el) => {
                            if (el) editRefs.current.set(k.id, el);
                            else editRefs.current.delete(k.id);
                          }}
                          onClick={() => setEditing(k)}
                          aria-label={`Edit key ${k.name}`}
                        >
                          Edit
                        </button>
                        <ConfirmButton
                          confirmLabel={`Confirm deleting key ${k.name}`}
                          action={() => remove(k)}
                        >
                          <span aria-hidden="true">Delete</span>
                          <span className="visually-hidden">Delete key {k.name}</span>
                        </ConfirmButton>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />
        </>
      )}
      {editing && (
        <EditKey
          key={editing.id}
          item={editing}
          onDone={(message) => {
            refocusEdit.current = editing.id;
            setEditing(null);
            if (message) {
              setNotice(message);
              void loaded.reload();
            }
          }}
        />
      )}
    </section>
  );
}
