import './qr.css';

import { useEffect, useState } from 'react';

import { call, client } from '../api';
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
import type { ApiError } from '../api';
import {
  createBody,
  EMPTY_FORM,
  formFromDetails,
  QrDetails,
  QrStatistics,
  typeName,
  updateBody,
} from './qr/model';
import { QrEditor } from './qr/QrEditor';

const PER_PAGE = 20;

/**
 * The QR codes page (`/qr`): the list (`GET /api/qr`, a page at a time), `/qr/new` (the form with
 * its live preview, `POST /api/qr/add`) and `/qr/<id>` (downloads, scans, edit, delete).
 */
export function QrPage(props: { sub: string }) {
  if (props.sub === '/new') return <NewQr />;
  const id = /^\/(\d+)$/.exec(props.sub);
  if (id) return <QrDetail id={Number(id[1])} />;
  return <QrList />;
}

function QrList() {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      call(client.GET('/api/qr', { params: { query: { page, limit: PER_PAGE } } })).then(
        (r) => r.data,
      ),
    [page],
  );
  const data = list.data;
  return (
    <>
      <PageHead title="QR codes">
        <Link to="/qr/new" className="button primary">
          New QR code
        </Link>
      </PageHead>
      <LoadState loaded={list} what="The QR codes" />
      {data && (
        <section aria-label="Your QR codes">
          <p aria-live="polite">
            {data.result === 0
              ? 'No QR codes yet: make one with "New QR code".'
              : `${data.result} QR code${data.result === 1 ? '' : 's'}`}
          </p>
          <ul className="links">
            {data.qrs.map((q) => (
              <li key={q.id} className="link">
                <Link to={`/qr/${q.id}`} className="short">
                  {q.name || `QR code ${q.id}`}
                </Link>
                <span className="target">{q.link}</span>
                <span className="meta">
                  {q.scans} scan{q.scans === 1 ? '' : 's'} · {formatDate(q.date)}
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

function NewQr() {
  // The short link is made on save: the preview encodes one of the same length (8-character
  // code), so it has the same size and density as the saved picture.
  const stand = `${window.location.origin}/q/XXXXXXXX`;
  return (
    <>
      <PageHead title="New QR code">
        <Link to="/qr">Back to QR codes</Link>
      </PageHead>
      <QrEditor
        label="New QR code"
        initial={EMPTY_FORM}
        typeFixed={false}
        encodes={stand}
        encodesNote="The code encodes its short link (made on save), which forwards to or shows the content: the picture changes with the colours and the logo, not with the content."
        submitLabel="Create QR code"
        autoFocus
        onSubmit={async (form) => {
          const created = await call(client.POST('/api/qr/add', { body: createBody(form) }));
          navigate(`/qr/${created.id}`);
        }}
        onCancel={() => navigate('/qr')}
      />
    </>
  );
}

function QrDetail(props: { id: number }) {
  const loaded = useLoad(
    () => call(client.GET('/api/qr/{id}', { params: { path: { id: props.id } } })),
    [props.id],
  );
  const [saved, setSaved] = useState(false);
  // bumped by each save: the image URLs change, so no cached picture of before is shown
  const [version, setVersion] = useState(0);
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  const details = loaded.data?.details;
  const status = details?.status;
  const { reload } = loaded;

  // the worker renders the image after a save: follow `status` until it settles
  useEffect(() => {
    if (status !== 'pending') return;
    const timer = setTimeout(() => void reload(), 1000);
    return () => clearTimeout(timer);
  }, [status, loaded.data, reload]);

  const title = details ? details.name || `QR code ${details.id}` : 'QR code';
  return (
    <>
      <PageHead title={title}>
        <Link to="/qr">Back to QR codes</Link>
      </PageHead>
      <LoadState loaded={loaded} what="The QR code" />
      {details && loaded.data && (
        <>
          <section className="card qr-summary" aria-label="Summary">
            <p>
              {typeName(details.type)} · made {formatDate(details.date)}
            </p>
            <p className="qr-link">
              Short link: <a href={details.link}>{details.link}</a>
            </p>
            <Downloads details={details} version={version} />
          </section>
          <Scans stats={loaded.data.data} />
          <h2>Edit</h2>
          {saved && (
            <p role="status" className="saved">
              Saved.
            </p>
          )}
          <QrEditor
            key={details.id}
            label="Edit QR code"
            initial={formFromDetails(details)}
            typeFixed
            encodes={details.link}
            encodesNote={`The code encodes its short link ${details.link}: new content takes effect without reprinting.`}
            submitLabel="Save changes"
            onSubmit={async (form) => {
              setSaved(false);
              await call(
                client.PUT('/api/qr/{id}/update', {
                  params: { path: { id: details.id } },
                  body: updateBody(form, details),
                }),
              );
              setSaved(true);
              setVersion((v) => v + 1);
              await reload();
            }}
          />
          <section className="card danger-zone" aria-label="Delete">
            <h2>Delete</h2>
            <p>
              Deleting removes the code, its short link and its images: printed copies stop working.
            </p>
            <ConfirmButton
              confirmLabel={`Confirm deleting ${title}`}
              action={async () => {
                setDeleteError(null);
                try {
                  await call(
                    client.DELETE('/api/qr/{id}/delete', { params: { path: { id: details.id } } }),
                  );
                  navigate('/qr');
                } catch (err) {
                  setDeleteError(toApiError(err));
                }
              }}
            >
              Delete QR code
            </ConfirmButton>
            <FormError error={deleteError} />
          </section>
        </>
      )}
    </>
  );
}

/** "Download PNG" and "Download SVG" of the saved image, once the worker has made it. */
function Downloads(props: { details: QrDetails; version: number }) {
  const { details } = props;
  const base = details.image.replace(/\.png$/, '');
  const v = props.version ? `?v=${props.version}` : '';
  const file = (details.name || `qr-${details.id}`).replace(/[^\w.-]+/g, '-');
  if (details.status === 'failed')
    return (
      <p className="error" role="alert">
        The image could not be made: {details.reason}. Save again to retry.
      </p>
    );
  if (details.status === 'pending')
    return (
      <p role="status" aria-busy="true">
        The image is being made…
      </p>
    );
  return (
    <div className="qr-downloads">
      <img
        src={`${base}.svg${v}`}
        alt={`The saved QR code ${details.name}`}
        width={160}
        height={160}
      />
      <div className="actions">
        <a className="button" href={`${base}.png${v}`} download={`${file}.png`}>
          Download PNG
        </a>
        <a className="button" href={`${base}.svg${v}`} download={`${file}.svg`}>
          Download SVG
        </a>
      </div>
    </div>
  );
}

/** The scan statistics `GET /api/qr/:id` returns with the code. */
function Scans(props: { stats: QrStatistics }) {
  const s = props.stats;
  const tops: Array<[string, Record<string, string>]> = [
    ['Countries', s.topCountries],
    ['Referrers', s.topReferrers],
    ['Browsers', s.topBrowsers],
    ['Systems', s.topOs],
  ];
  return (
    <section className="card qr-scans" aria-labelledby="qr-scans-h">
      <h2 id="qr-scans-h">Scans</h2>
      <p>
        {s.clicks} scan{s.clicks === 1 ? '' : 's'}, {s.uniqueClicks} unique
      </p>
      <div className="grid-2">
        {tops.map(([name, top]) => {
          const rows = Object.entries(top);
          return (
            <div key={name} className="table-wrap">
              <table>
                <caption>{name}</caption>
                <thead>
                  <tr>
                    <th scope="col">{name.replace(/s$/, '').replace(/ie$/, 'y')}</th>
                    <th scope="col">Scans</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.length === 0 ? (
                    <tr>
                      <td colSpan={2}>None yet</td>
                    </tr>
                  ) : (
                    rows.map(([label, count]) => (
                      <tr key={label}>
                        <td>{label}</td>
                        <td>{count}</td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
          );
        })}
      </div>
      {s.socialCount && (
        <p className="hint">
          From social networks: Facebook {s.socialCount.network01}, X {s.socialCount.network02},
          LinkedIn {s.socialCount.network03}
        </p>
      )}
    </section>
  );
}
