import './bio.css';
import './qr.css';

import { useState } from 'react';

import { ApiError, call, client } from '../api';
import { Link, navigate } from '../router';
import {
  ConfirmButton,
  formatDate,
  FormError,
  LoadState,
  PageHead,
  Pager,
  toApiError,
  useLoad,
} from '../ui';
import { BioEditor } from './bio/BioEditor';
import { addBody, domainId, Domain, emptyBio, formFromView, updateBody } from './bio/model';

const PER_PAGE = 20;

/** The branded domains a page can live on (first 100; none when the list cannot be read). */
async function loadDomains(): Promise<Domain[]> {
  try {
    const r = await call(
      client.GET('/api/domains', { params: { query: { page: 1, limit: 100 } } }),
    );
    return r.data.domains;
  } catch {
    return [];
  }
}

/** "Open" (the public page, in a new tab). */
function OpenLink(props: { url: string; name: string; className?: string }) {
  return (
    <a
      href={props.url}
      target="_blank"
      rel="noopener noreferrer"
      className={props.className}
      aria-label={`Open ${props.name} (new tab)`}
    >
      Open
    </a>
  );
}

/**
 * The bio pages page (`/bio`): the list (`GET /api/bio`, a page at a time), `/bio/new` (the form
 * with its live preview, `POST /api/bio/add`) and `/bio/<id>` (edit, open, delete).
 */
export function BioPage(props: { sub: string }) {
  if (props.sub === '/new') return <NewBio />;
  const id = /^\/(\d+)$/.exec(props.sub);
  if (id) return <BioDetail id={Number(id[1])} />;
  return <BioList />;
}

function BioList() {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      call(client.GET('/api/bio', { params: { query: { page, limit: PER_PAGE } } })).then(
        (r) => r.data,
      ),
    [page],
  );
  const data = list.data;
  return (
    <>
      <PageHead title="Bio pages">
        <Link to="/bio/new" className="button primary">
          New bio page
        </Link>
      </PageHead>
      <LoadState loaded={list} what="The bio pages" />
      {data && (
        <section aria-label="Your bio pages">
          <p aria-live="polite">
            {data.result === 0
              ? 'No bio pages yet: make one with "New bio page".'
              : `${data.result} bio page${data.result === 1 ? '' : 's'}`}
          </p>
          <ul className="links">
            {data.bios.map((b) => (
              <li key={b.id} className="link bio-item">
                <Link to={`/bio/${b.id}`} className="short">
                  {b.name}
                </Link>
                <span className="target">
                  {b.url} · <OpenLink url={b.url} name={b.name} />
                </span>
                <span className="meta">
                  {b.links.length} button{b.links.length === 1 ? '' : 's'} · {b.clicks} visit
                  {b.clicks === 1 ? '' : 's'} · {formatDate(b.date)}
                </span>
              </li>
            ))}
          </ul>
          <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />
        </section>
      )}
    </>
  );
}

function NewBio() {
  const domains = useLoad(loadDomains, []);
  return (
    <>
      <PageHead title="New bio page">
        <Link to="/bio">Back to bio pages</Link>
      </PageHead>
      {domains.data ? (
        <BioEditor
          label="New bio page"
          initial={emptyBio()}
          domains={domains.data}
          publicBase={window.location.origin}
          submitLabel="Create bio page"
          autoFocus
          onSubmit={async (form) => {
            const saved = await call(client.POST('/api/bio/add', { body: addBody(form) }));
            navigate(`/bio/${saved.id}`);
          }}
          onCancel={() => navigate('/bio')}
        />
      ) : (
        <p aria-busy="true">Loading…</p>
      )}
    </>
  );
}

function BioDetail(props: { id: number }) {
  const loaded = useLoad(async () => {
    const [read, domains] = await Promise.all([
      call(client.GET('/api/bio/{id}', { params: { path: { id: props.id } } })),
      loadDomains(),
    ]);
    return { view: read.details, domains };
  }, [props.id]);
  const [saved, setSaved] = useState(false);
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  const view = loaded.data?.view;
  const domains = loaded.data?.domains ?? [];
  const title = view ? view.name : 'Bio page';
  return (
    <>
      <PageHead title={title}>
        {view && <OpenLink url={view.url} name={view.name} className="button" />}
        <Link to="/bio">Back to bio pages</Link>
      </PageHead>
      <LoadState loaded={loaded} what="The bio page" />
      {view && (
        <>
          <section className="card bio-summary" aria-label="Summary">
            <p className="bio-url">
              Address:{' '}
              <a href={view.url} target="_blank" rel="noopener noreferrer">
                {view.url}
              </a>
            </p>
            <p>
              {view.clicks} visit{view.clicks === 1 ? '' : 's'} ({view.uniqueClicks} unique) · made{' '}
              {formatDate(view.date)}
            </p>
          </section>
          {saved && (
            <p role="status" className="saved">
              Saved.
            </p>
          )}
          <BioEditor
            key={view.id}
            label="Edit bio page"
            initial={formFromView(view, domains)}
            domains={domains}
            publicBase={
              view.domain
                ? window.location.origin
                : view.url.slice(0, view.url.length - view.alias.length - 1)
            }
            submitLabel="Save changes"
            onSubmit={async (form) => {
              setSaved(false);
              await call(
                client.PUT('/api/bio/{id}/update', {
                  params: { path: { id: view.id } },
                  body: updateBody(form, view, domainId(view, domains)),
                }),
              );
              setSaved(true);
              await loaded.reload();
            }}
          />
          <section className="card danger-zone" aria-label="Delete">
            <h2>Delete</h2>
            <p>Its address stops answering at once.</p>
            <ConfirmButton
              confirmLabel={`Confirm deleting ${view.name}`}
              action={async () => {
                setDeleteError(null);
                try {
                  await call(
                    client.DELETE('/api/bio/{id}/delete', { params: { path: { id: view.id } } }),
                  );
                  navigate('/bio');
                } catch (err) {
                  setDeleteError(toApiError(err));
                }
              }}
            >
              Delete bio page
            </ConfirmButton>
            <FormError error={deleteError} />
          </section>
        </>
      )}
    </>
  );
}
