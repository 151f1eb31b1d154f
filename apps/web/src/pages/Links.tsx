import { FormEvent, useId, useRef, useState } from 'react';

import { call, client, Schemas } from '../api';
import { Link } from '../router';
import { Field, FormError, formatDate, Pager, toApiError, useFocusLater, useLoad } from '../ui';
import { LinkForm } from './links/LinkForm';
import './links.css';

const PER_PAGE = 20;

type Order = 'date' | 'click';
type BulkItem = Schemas['BulkItemView'];

/** One line of the bulk form and what the API answered for it. */
interface BulkLine {
  line: number;
  url: string;
  result: BulkItem;
}

/**
 * "Shorten several": one URL a line, sent to `POST /api/url/bulk` (at most 100); each line's
 * short URL or the API's reason, in its place.
 */
function BulkForm(props: { id: string; onDone: () => void; onCancel: () => void }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [lines, setLines] = useState<BulkLine[] | null>(null);
  const { ref: results, focusLater: focusResults } = useFocusLater<HTMLHeadingElement>();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = text
      .split('\n')
      .map((url, i) => ({ line: i + 1, url: url.trim() }))
      .filter((l) => l.url !== '');
    setError(null);
    setLines(null);
    if (wanted.length === 0) {
      setError(toApiError(new Error('urls: write at least one URL, one a line.')));
      return;
    }
    setBusy(true);
    try {
      const { data } = await call(
        client.POST('/api/url/bulk', { body: { urls: wanted.map((l) => ({ url: l.url })) } }),
      );
      setLines(wanted.map((l, i) => ({ ...l, result: data[i] ?? {} })));
      props.onDone();
      focusResults();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const created = lines?.filter((l) => l.result.id !== undefined).length ?? 0;
  const refused = (lines?.length ?? 0) - created;
  return (
    <form id={props.id} className="card bulk" onSubmit={submit} aria-label="Shorten several">
      <Field
        label="URLs to shorten, one a line"
        names={['urls']}
        error={error}
        hint="Up to 100 lines; each line becomes a link on its own."
      >
        <textarea
          rows={6}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </Field>
      <FormError error={error} names={['urls']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Shorten all
        </button>
        <button type="button" onClick={props.onCancel}>
          Close
        </button>
      </div>
      {lines && (
        <section className="bulk-results" aria-labelledby={`${props.id}-results`}>
          <h2 id={`${props.id}-results`} ref={results} tabIndex={-1}>
            {created} created, {refused} refused
          </h2>
          <ol>
            {lines.map((l) => (
              <li key={l.line} className={l.result.id !== undefined ? 'ok' : 'refused'}>
                <span className="line">Line {l.line}:</span> <span className="url">{l.url}</span>
                {l.result.id !== undefined ? (
                  <>
                    {' → '}
                    <Link to={`/links/${l.result.id}`}>{l.result.shorturl}</Link>
                  </>
                ) : (
                  <span className="error"> refused: {l.result.message}</span>
                )}
              </li>
            ))}
          </ol>
        </section>
      )}
    </form>
  );
}

/** A link of the list: short URL, destination, clicks, date, its page and its statistics. */
function LinkRow(props: { link: Schemas['LinkItemView'] }) {
  const l = props.link;
  return (
    <li className="link">
      <a className="short" href={l.shorturl}>
        {l.shorturl}
      </a>
      {l.title && <span className="title">{l.title}</span>}
      <span className="target">{l.longurl}</span>
      <span className="meta">
        {l.clicks} click{l.clicks === 1 ? '' : 's'} · {formatDate(l.date)}
        {l.status === 'private' ? ' · private' : ''}
      </span>
      <span className="row-links">
        <Link to={`/links/${l.id}`}>
          Details<span className="visually-hidden"> of {l.alias}</span>
        </Link>
        <Link to={`/stats/${l.id}`}>
          Statistics<span className="visually-hidden"> of {l.alias}</span>
        </Link>
      </span>
    </li>
  );
}

/**
 * The links page: `GET /api/urls` a page at a time (the server paginates, sorts and searches, so
 * ten thousand links cost what twenty do), a search box (`q`), the order (`order`: newest or most
 * clicked), "New link" (every option of `url/add`) and "Shorten several" (`url/bulk`).
 */
export function LinksPage() {
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [order, setOrder] = useState<Order>('date');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<'new' | 'bulk' | null>(null);
  const [created, setCreated] = useState<string | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const bulkButton = useRef<HTMLButtonElement>(null);
  const formId = useId();
  const bulkId = useId();

  const list = useLoad(
    () =>
      call(
        client.GET('/api/urls', {
          params: { query: { q: search || undefined, order, page, limit: PER_PAGE } },
        }),
      ).then((r) => r.data),
    [search, order, page],
  );

  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setSearch(query.trim());
  };

  const closeForm = () => {
    const was = open;
    setOpen(null);
    (was === 'bulk' ? bulkButton : newButton).current?.focus();
  };

  const data = list.data;
  return (
    <>
      <div className="page-head">
        <h1>Links</h1>
        <div className="actions">
          <button
            type="button"
            ref={newButton}
            className="primary"
            aria-expanded={open === 'new'}
            aria-controls={open === 'new' ? formId : undefined}
            onClick={() => {
              setCreated(null);
              setOpen((o) => (o === 'new' ? null : 'new'));
            }}
          >
            New link
          </button>
          <button
            type="button"
            ref={bulkButton}
            aria-expanded={open === 'bulk'}
            aria-controls={open === 'bulk' ? bulkId : undefined}
            onClick={() => {
              setCreated(null);
              setOpen((o) => (o === 'bulk' ? null : 'bulk'));
            }}
          >
            Shorten several
          </button>
        </div>
      </div>
      {created && (
        <p role="status" className="created">
          Created <a href={created}>{created}</a>
        </p>
      )}
      {open === 'new' && (
        <LinkForm
          id={formId}
          onCancel={closeForm}
          onDone={(r) => {
            closeForm();
            setCreated(r.shorturl);
            if (page === 1) void list.reload();
            else setPage(1);
          }}
        />
      )}
      {open === 'bulk' && (
        <BulkForm
          id={bulkId}
          onCancel={closeForm}
          onDone={() => {
            if (page === 1) void list.reload();
            else setPage(1);
          }}
        />
      )}
      <div className="list-tools">
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
        <div className="sort">
          <label htmlFor="links-order">Sort by</label>
          <select
            id="links-order"
            value={order}
            onChange={(e) => {
              setPage(1);
              setOrder(e.target.value as Order);
            }}
          >
            <option value="date">Newest first</option>
            <option value="click">Most clicked</option>
          </select>
        </div>
      </div>
      {list.error && (
        <p className="error" role="alert">
          The links could not be loaded: {list.error.message}
        </p>
      )}
      {data && (
        <section aria-label="Your links" aria-busy={list.loading}>
          <p aria-live="polite">
            {data.result === 0
              ? search
                ? 'No link matches this search.'
                : 'No links yet: make one with "New link".'
              : `${data.result} link${data.result === 1 ? '' : 's'}`}
          </p>
          <ul className="links">
            {data.urls.map((l) => (
              <LinkRow key={l.id} link={l} />
            ))}
          </ul>
          <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />
        </section>
      )}
    </>
  );
}
