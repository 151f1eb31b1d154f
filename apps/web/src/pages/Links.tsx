import { FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';

import { ApiError, links } from '../api';

type LinkList = Awaited<ReturnType<typeof links.list>>;

const PER_PAGE = 20;

/** The form behind "New link": the destination, "Create", and the API's error by its field. */
function NewLinkForm(props: { id: string; onCreated: () => void; onCancel: () => void }) {
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const urlError = useId();

  useEffect(() => input.current?.focus(), []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await links.create(url.trim());
      setUrl('');
      props.onCreated();
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError('Creating the link failed.', 0));
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const onUrl = error?.field === 'url';
  return (
    <form id={props.id} className="card" onSubmit={submit} aria-label="New link" noValidate>
      <div className="field">
        <label htmlFor="new-link-url">Destination URL</label>
        <input
          id="new-link-url"
          ref={input}
          type="url"
          inputMode="url"
          placeholder="https://example.com/page"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          aria-invalid={onUrl || undefined}
          aria-describedby={onUrl ? urlError : undefined}
        />
        {onUrl && (
          <p id={urlError} className="error" role="alert">
            {error.message}
          </p>
        )}
      </div>
      {error && !onUrl && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The links page: `GET /api/urls` a page at a time (the server paginates and searches, so ten
 * thousand links cost what twenty do), a search box (`q`), and "New link".
 */
export function LinksPage() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [list, setList] = useState<LinkList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState(0);
  const newButton = useRef<HTMLButtonElement>(null);
  const formId = useId();

  const load = useCallback(async () => {
    try {
      setList(await links.list({ q: search, page, limit: PER_PAGE }));
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'The links could not be loaded.');
    }
  }, [search, page]);

  useEffect(() => {
    void load();
  }, [load, created]);

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setSearch(query.trim());
  };

  const closeForm = () => {
    setCreating(false);
    newButton.current?.focus();
  };

  return (
    <>
      <div className="page-head">
        <h1>Links</h1>
        <button
          type="button"
          ref={newButton}
          className="primary"
          aria-expanded={creating}
          aria-controls={creating ? formId : undefined}
          onClick={() => setCreating((c) => !c)}
        >
          New link
        </button>
      </div>
      {creating && (
        <NewLinkForm
          id={formId}
          onCancel={closeForm}
          onCreated={() => {
            closeForm();
            setPage(1);
            setCreated((n) => n + 1);
          }}
        />
      )}
      <form role="search" className="search" onSubmit={onSearch}>
        <label htmlFor="links-q">Search links</label>
        <input
          id="links-q"
          type="search"
          name="q"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit">Search</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {list && (
        <section aria-label="Your links">
          <p aria-live="polite">
            {list.result === 0
              ? search
                ? 'No link matches this search.'
                : 'No links yet: make one with "New link".'
              : `${list.result} link${list.result === 1 ? '' : 's'}`}
          </p>
          <ul className="links">
            {list.urls.map((l) => (
              <li key={l.id} className="link">
                <a className="short" href={l.shorturl}>
                  {l.shorturl}
                </a>
                <span className="target">{l.title || l.longurl}</span>
                <span className="meta">
                  {l.clicks} click{l.clicks === 1 ? '' : 's'} · {l.date}
                </span>
              </li>
            ))}
          </ul>
          {list.maxpage > 1 && (
            <nav className="pager" aria-label="Pages">
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <span>
                Page {list.currentpage} of {list.maxpage}
              </span>
              <button type="button" disabled={!list.nextpage} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </nav>
          )}
        </section>
      )}
    </>
  );
}
