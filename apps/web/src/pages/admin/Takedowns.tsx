import { useState } from 'react';

import { ApiError, call, client } from '../../api';
import { Field, FormError, PageHead, toApiError } from '../../ui';

type Kind = '' | 'link' | 'bio' | 'qr';

const KINDS: Record<Kind, string> = {
  '': 'A link or bio page, by its id',
  link: 'A link, by its id',
  bio: 'A bio page, by its id',
  qr: 'A QR code, by its QR code id',
};

/** What was done here since the page opened (the api has no list of disabled codes). */
interface Done {
  id: string;
  kind: Kind;
  disabled: boolean;
  message: string;
}

/**
 * Disabled links (`/admin/links`): disable or enable any user's short code by its id
 * (`PUT /api/admin/url/:id/disable|enable`, `?kind=link|bio|qr`). A disabled code answers the 451
 * page and keeps its alias reserved for its owner. The api has no list of disabled codes: the
 * actions of this visit are listed below the form, with a button to undo each.
 */
export function TakedownsSection() {
  const [id, setId] = useState('');
  const [kind, setKind] = useState<Kind>('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Done[]>([]);

  const act = async (disabled: boolean, target = { id: id.trim(), kind }) => {
    setError(null);
    if (!target.id) {
      setError(new ApiError('id: enter the id of the link, bio page or QR code', 0));
      return;
    }
    setBusy(true);
    try {
      const params = {
        // sent as typed: the api names what is wrong with it ("id: …")
        path: { id: target.id as unknown as number },
        query: target.kind ? { kind: target.kind } : undefined,
      };
      const answer = disabled
        ? await call(client.PUT('/api/admin/url/{id}/disable', { params }))
        : await call(client.PUT('/api/admin/url/{id}/enable', { params }));
      setDone((list) => [
        { id: target.id, kind: target.kind, disabled, message: answer.message },
        ...list.filter((d) => d.id !== target.id || d.kind !== target.kind),
      ]);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHead title="Disabled links" />
      <p className="hint">
        A disabled link, bio page or QR code answers a &ldquo;blocked&rdquo; page instead of
        forwarding, and its alias stays reserved for its owner until it is enabled again. The id is
        the one of the link&apos;s (or bio page&apos;s, QR code&apos;s) details in the API.
      </p>
      <form
        className="card admin-form"
        aria-label="Disable or enable a short code"
        onSubmit={(e) => {
          e.preventDefault();
          void act(true);
        }}
        noValidate
      >
        <div className="grid-2">
          <Field label="Id" names={['id']} error={error}>
            <input
              inputMode="numeric"
              value={id}
              onChange={(e) => setId(e.target.value)}
              autoComplete="off"
              required
            />
          </Field>
          <Field label="What the id names" names={['kind']} error={error}>
            <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
              {(Object.keys(KINDS) as Kind[]).map((k) => (
                <option key={k} value={k}>
                  {KINDS[k]}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <FormError error={error} names={['id', 'kind']} />
        <p role="status" className="admin-status">
          {done[0]?.message}
        </p>
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Disable
          </button>
          <button type="button" disabled={busy} onClick={() => void act(false)}>
            Enable
          </button>
        </div>
      </form>

      <h2>Changed during this visit</h2>
      {done.length === 0 ? (
        <p>Nothing yet. The API keeps no list of disabled links to show here.</p>
      ) : (
        <ul className="admin-done">
          {done.map((d) => (
            <li key={`${d.kind}:${d.id}`}>
              <span>
                {d.message} (id {d.id}
                {d.kind ? `, ${d.kind}` : ''})
              </span>
              <button
                type="button"
                disabled={busy}
                onClick={() => void act(!d.disabled, { id: d.id, kind: d.kind })}
              >
                {d.disabled ? 'Enable' : 'Disable'} id {d.id}
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
