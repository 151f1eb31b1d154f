import { FormEvent, useState } from 'react';

import { ApiError, call, client } from '../../api';
import {
  ConfirmButton,
  Field,
  FormError,
  formatDate,
  LoadState,
  PageHead,
  Pager,
  toApiError,
  useLoad,
} from '../../ui';
import { Notice } from './common';

const LIMIT = 20;

/**
 * The blocklist (`/admin/blocklist`): the entries admins added (`GET /api/admin/blocklist`, by
 * pages), "Block" (`POST /api/admin/blocklist/add`) and "Unblock" (`DELETE …/:id/delete`).
 */
export function BlocklistSection() {
  const [page, setPage] = useState(1);
  const [entry, setEntry] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [listError, setListError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<{ text: string; focus: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const list = useLoad(
    async () =>
      (
        await call(
          client.GET('/api/admin/blocklist', { params: { query: { page, limit: LIMIT } } }),
        )
      ).data,
    [page],
  );

  const add = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const added = await call(
        client.POST('/api/admin/blocklist/add', { body: { entry: entry.trim() } }),
      );
      setEntry('');
      if (page === 1) await list.reload();
      else setPage(1);
      setNotice({ text: `${added.entry} is blocked.`, focus: false });
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const remove = async (id: number, name: string) => {
    setListError(null);
    setNotice(null);
    try {
      await call(client.DELETE('/api/admin/blocklist/{id}/delete', { params: { path: { id } } }));
      await list.reload();
      // the row and its button are gone: the focus goes to the notice saying so
      setNotice({ text: `${name} is no longer blocked.`, focus: true });
    } catch (err) {
      setListError(toApiError(err));
    }
  };

  const data = list.data;
  return (
    <>
      <PageHead title="Blocklist" />
      <p className="hint">
        A blocked destination is refused when links, targeting rules, redirects or QR codes are
        created or changed, and existing links to it answer a &ldquo;blocked&rdquo; page. Entries of
        the operator&apos;s blocklist file apply too but are not listed here.
      </p>
      <form className="card admin-form" aria-label="Block a destination" onSubmit={add} noValidate>
        <Field
          label="Domain or keyword"
          names={['entry']}
          error={error}
          hint="A domain blocks it and its subdomains (bad.example); keyword:word blocks every URL containing the word."
        >
          <input
            value={entry}
            onChange={(e) => setEntry(e.target.value)}
            autoComplete="off"
            required
          />
        </Field>
        <FormError error={error} names={['entry']} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Block
          </button>
        </div>
      </form>
      {notice && (
        <Notice key={notice.text} focus={notice.focus} onDismiss={() => setNotice(null)}>
          {notice.text}
        </Notice>
      )}
      <FormError error={listError} />
      <LoadState loaded={list} what="The blocklist" />
      {data && data.blocklist.length === 0 && <p>No entries added through the API.</p>}
      {data && data.blocklist.length > 0 && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Entry</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="admin-sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.blocklist.map((b) => (
                <tr key={b.id}>
                  <td>{b.entry}</td>
                  <td>{formatDate(b.date)}</td>
                  <td>
                    <ConfirmButton
                      confirmLabel={`Confirm unblocking ${b.entry}`}
                      action={() => remove(b.id, b.entry)}
                    >
                      <span aria-hidden="true">Unblock</span>
                      <span className="admin-sr">Unblock {b.entry}</span>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />}
    </>
  );
}
