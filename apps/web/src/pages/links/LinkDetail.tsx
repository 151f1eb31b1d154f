import { ReactNode, useRef, useState } from 'react';

import { call, client, Schemas } from '../../api';
import { Link, navigate } from '../../router';
import { ConfirmButton, formatDate, LoadState, toApiError, useLoad } from '../../ui';
import '../links.css';
import { LinkForm, useChoices } from './LinkForm';

type Details = Schemas['LinkDetailsView'];

const TYPES: Record<Details['type'], string> = {
  direct: 'Direct redirect',
  frame: 'Destination in a frame',
  splash: 'Splash page first',
  overlay: 'Framed with an overlay',
};

/** The short URL in a read-only box with "Copy". */
function CopyUrl(props: { url: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.url);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="copy">
      <a href={props.url}>{props.url}</a>
      <button type="button" onClick={copy} aria-label={`Copy ${props.url}`}>
        Copy
      </button>
      <span role="status" className="hint">
        {copied === true ? 'Copied.' : copied === false ? 'Copy it by hand: copying failed.' : ''}
      </span>
    </div>
  );
}

function Row(props: { name: string; children: ReactNode }) {
  return (
    <>
      <dt>{props.name}</dt>
      <dd>{props.children}</dd>
    </>
  );
}

function Rules(props: { rules: Array<{ key: string; link: string }> | null }) {
  if (!props.rules?.length) return <>None</>;
  return (
    <ul className="plain">
      {props.rules.map((r, i) => (
        <li key={i}>
          {r.key} → <span className="url">{r.link}</span>
        </li>
      ))}
    </ul>
  );
}

const HEALTH: Record<Schemas['LinkHealthData']['status'], string> = {
  ok: 'Working',
  broken: 'Broken',
  unknown: 'Not checked yet',
};

/** The destination's health (`url/:id/health`): status and the last probes. */
function HealthPanel(props: { id: number; fallback: string | null }) {
  const loaded = useLoad(
    () => call(client.GET('/api/url/{id}/health', { params: { path: { id: props.id } } })),
    [props.id],
  );
  const h = loaded.data?.data;
  return (
    <section aria-labelledby="health-head">
      <h2 id="health-head">Destination health</h2>
      {!h && <LoadState loaded={loaded} what="The health checks" />}
      {h && (
        <>
          <dl className="details">
            <Row name="Status">
              {HEALTH[h.status]}
              {h.status === 'broken' &&
                (props.fallback ? ' (visitors go to the fallback URL)' : ' (no fallback URL set)')}
            </Row>
            {h.since && <Row name="Since">{formatDate(h.since)}</Row>}
            {h.checked && <Row name="Last check">{formatDate(h.checked)}</Row>}
            {h.checked && (
              <Row name="Last answer">
                {h.httpstatus !== null ? `HTTP ${h.httpstatus}` : 'None'}
                {h.error ? `: ${h.error}` : ''}
              </Row>
            )}
          </dl>
          {h.history.length > 0 && (
            <table>
              <caption>Last checks, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Answer</th>
                  <th scope="col">Problem</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                {h.history.map((p, i) => (
                  <tr key={i}>
                    <td>{formatDate(p.date)}</td>
                    <td>{p.httpstatus ?? '—'}</td>
                    <td>{p.error ?? 'None'}</td>
                    <td>{p.ms} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}

/** One link (`/links/<id>`): its details and options, "Edit" (`url/:id/update`), "Delete". */
export function LinkDetailPage(props: { id: number }) {
  const loaded = useLoad(
    () => call(client.GET('/api/url/{id}', { params: { path: { id: props.id } } })),
    [props.id],
  );
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const editButton = useRef<HTMLButtonElement>(null);

  const choices = useChoices().data;
  const d = loaded.data?.details;
  const nameOf = (list: Array<{ id: number; name: string }> | undefined, id: number) =>
    list?.find((x) => x.id === id)?.name || `#${id}`;
  const stats = loaded.data?.data;

  const remove = async () => {
    setDeleteError(null);
    try {
      await call(client.DELETE('/api/url/{id}/delete', { params: { path: { id: props.id } } }));
      navigate('/links');
    } catch (err) {
      setDeleteError(toApiError(err).message);
    }
  };

  return (
    <>
      <p className="back">
        <Link to="/links">← All links</Link>
      </p>
      {!d && (
        <>
          <h1>Link</h1>
          <LoadState loaded={loaded} what="The link" />
        </>
      )}
      {d && (
        <>
          <div className="page-head">
            <h1 className="link-title">Link {d.alias}</h1>
            <div className="actions">
              <button
                type="button"
                ref={editButton}
                aria-expanded={editing}
                onClick={() => {
                  setSaved(false);
                  setEditing((e) => !e);
                }}
              >
                Edit
              </button>
              <Link to={`/stats/${d.id}`} className="button-link">
                Statistics
              </Link>
              <ConfirmButton confirmLabel={`Confirm deleting ${d.alias}`} action={remove}>
                Delete
              </ConfirmButton>
            </div>
          </div>
          {deleteError && (
            <p className="error" role="alert">
              {deleteError}
            </p>
          )}
          {saved && <p role="status">Changes saved.</p>}
          {d.disabled && (
            <p className="error" role="alert">
              An administrator disabled this link: visitors see the “unavailable” page.
            </p>
          )}
          {editing && (
            <LinkForm
              key={d.id}
              link={d}
              onCancel={() => {
                setEditing(false);
                editButton.current?.focus();
              }}
              onDone={async () => {
                await loaded.reload();
                setEditing(false);
                setSaved(true);
                editButton.current?.focus();
              }}
            />
          )}
          <dl className="details">
            <Row name="Short URL">
              <CopyUrl url={d.shorturl} />
            </Row>
            <Row name="Destination">
              <a className="url" href={d.longurl}>
                {d.longurl}
              </a>
            </Row>
            {d.title && <Row name="Title">{d.title}</Row>}
            {d.description && <Row name="Description">{d.description}</Row>}
            <Row name="Clicks">
              {stats?.clicks ?? d.clicks} ({stats?.uniqueClicks ?? d.uniqueClicks} unique)
            </Row>
            <Row name="Created">{formatDate(d.date)}</Row>
            <Row name="Domain">{d.domain ?? 'Main domain'}</Row>
            {d.flag ? (
              <Row name="Flagged">
                as {d.flag.type} by {d.flag.source} on {formatDate(d.flag.date)}: visitors get a
                warning page
              </Row>
            ) : (
              <Row name="Visibility">{d.status === 'private' ? 'Private' : 'Public'}</Row>
            )}
            <Row name="Redirect type">
              {TYPES[d.type]}
              {d.overlay ? `: ${nameOf(choices?.overlays, d.overlay)}` : ''}
              {d.splash ? `: ${nameOf(choices?.splash, d.splash)}` : ''}
            </Row>
            <Row name="Password">{d.password ? 'Yes' : 'No'}</Row>
            <Row name="Expires">{d.expiry ? formatDate(d.expiry) : 'Never'}</Row>
            <Row name="Click limit">{d.clicklimit ?? 'None'}</Row>
            <Row name="After expiry">
              {d.expirationredirect ? (
                <span className="url">{d.expirationredirect}</span>
              ) : (
                'The “gone” page'
              )}
            </Row>
            <Row name="If broken">
              {d.fallbackurl ? <span className="url">{d.fallbackurl}</span> : 'No fallback'}
            </Row>
            <Row name="Country rules">
              <Rules rules={d.geotarget?.map((r) => ({ key: r.location, link: r.link })) ?? null} />
            </Row>
            <Row name="Device rules">
              <Rules
                rules={d.devicetarget?.map((r) => ({ key: r.device, link: r.link })) ?? null}
              />
            </Row>
            <Row name="Language rules">
              <Rules
                rules={d.languagetarget?.map((r) => ({ key: r.language, link: r.link })) ?? null}
              />
            </Row>
            <Row name="App deep links">
              {d.deeplink?.apple || d.deeplink?.google ? (
                <Rules
                  rules={[
                    ...(d.deeplink.apple ? [{ key: 'iOS', link: d.deeplink.apple }] : []),
                    ...(d.deeplink.google ? [{ key: 'Android', link: d.deeplink.google }] : []),
                  ]}
                />
              ) : (
                'None'
              )}
            </Row>
            <Row name="Parameters">
              {d.parameters?.length
                ? d.parameters.map((p) => `${p.name}=${p.value}`).join(', ')
                : 'None'}
              {d.forwardquery ? ' (and the visitor’s query string)' : ''}
            </Row>
            <Row name="Social preview">
              {d.metatitle || d.metadescription || d.metaimage
                ? [d.metatitle, d.metadescription, d.metaimage].filter(Boolean).join(' · ')
                : 'None'}
            </Row>
            <Row name="Pixels">
              {d.pixels.length
                ? d.pixels.map((id) => nameOf(choices?.pixels, id)).join(', ')
                : 'None'}
            </Row>
            <Row name="Campaign">
              {d.campaign ? nameOf(choices?.campaigns, d.campaign) : 'None'}
            </Row>
            <Row name="Channels">
              {d.channels.length
                ? d.channels.map((id) => nameOf(choices?.channels, id)).join(', ')
                : 'None'}
            </Row>
          </dl>
          <HealthPanel id={d.id} fallback={d.fallbackurl} />
        </>
      )}
    </>
  );
}
