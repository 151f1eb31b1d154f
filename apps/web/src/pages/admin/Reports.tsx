import { useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
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

type Status = 'open' | 'dismissed' | 'disabled' | '';
type Report = Schemas['ReportView'];

const STATUSES: Record<Status, string> = {
  open: 'Open',
  dismissed: 'Dismissed',
  disabled: 'Link disabled',
  '': 'All',
};

const REASONS: Record<string, string> = {
  phishing: 'Phishing',
  malware: 'Malware',
  spam: 'Spam',
  illegal: 'Illegal content',
  other: 'Other',
};

/**
 * Abuse reports (`/admin/reports`): the queue of `GET /api/admin/reports` (open ones first shown,
 * by pages, a status filter), each with its link, the reporter's e-mail and how many reports the
 * link has; "Dismiss" and "Disable link" (`PUT /api/admin/report/:id/resolve`) resolve the report
 * and every other open report of the same link.
 */
export function ReportsSection() {
  const [status, setStatus] = useState<Status>('open');
  const [page, setPage] = useState(1);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const list = useLoad(
    async () =>
      (
        await call(
          client.GET('/api/admin/reports', {
            params: { query: { page, limit: LIMIT, ...(status ? { status } : {}) } },
          }),
        )
      ).data,
    [page, status],
  );

  const resolve = async (r: Report, action: 'dismiss' | 'disable') => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const answer = await call(
        client.PUT('/api/admin/report/{id}/resolve', {
          params: { path: { id: r.id } },
          body: { action },
        }),
      );
      await list.reload();
      // the row's buttons are gone: the focus goes to the notice saying what happened
      setNotice(`${r.link.shorturl}: ${answer.message}`);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const data = list.data;
  return (
    <>
      <PageHead title="Reports" />
      <p className="hint">
        Abuse reports sent through the public page /report or the API. Resolving a report resolves
        every other open report of the same link; &ldquo;Disable link&rdquo; takes the link down (it
        answers a &ldquo;blocked&rdquo; page). The reporter&apos;s e-mail is shown to admins only.
      </p>
      <div className="card admin-form">
        <Field label="Status" names={['status']} error={list.error}>
          <select
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as Status);
              setPage(1);
            }}
          >
            {(Object.keys(STATUSES) as Status[]).map((s) => (
              <option key={s} value={s}>
                {STATUSES[s]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {notice && (
        <Notice key={notice} onDismiss={() => setNotice(null)}>
          {notice}
        </Notice>
      )}
      <FormError error={error} />
      <LoadState loaded={list} what="The reports" />
      {data && data.reports.length === 0 && <p>No reports here.</p>}
      {data && data.reports.length > 0 && (
        <div className="table-wrap admin-reports-wrap">
          <table className="admin-reports">
            <thead>
              <tr>
                <th scope="col">Reported</th>
                <th scope="col">Link</th>
                <th scope="col">Reason</th>
                <th scope="col">Reporter</th>
                <th scope="col">Reports of the link</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="admin-sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.reports.map((r) => (
                <tr key={r.id}>
                  <td>{formatDate(r.date)}</td>
                  <td className="admin-wrap">
                    <a href={r.link.shorturl} rel="noreferrer noopener">
                      {r.link.shorturl}
                    </a>
                    <br />
                    <span className="hint">
                      to {r.link.url} (owner #{r.link.owner})
                    </span>
                  </td>
                  <td className="admin-wrap">
                    {REASONS[r.reason] ?? r.reason}
                    {r.details && (
                      <>
                        <br />
                        <span className="hint">{r.details}</span>
                      </>
                    )}
                  </td>
                  <td className="admin-wrap">{r.email ?? '—'}</td>
                  <td>
                    {r.open} open of {r.reports}
                  </td>
                  <td>
                    {STATUSES[r.status as Status] ?? r.status}
                    {r.resolved && (
                      <>
                        <br />
                        <span className="hint">{formatDate(r.resolved)}</span>
                      </>
                    )}
                  </td>
                  <td>
                    {r.status === 'open' && (
                      <span className="actions">
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() => void resolve(r, 'dismiss')}
                        >
                          <span aria-hidden="true">Dismiss</span>
                          <span className="admin-sr">Dismiss report {r.id}</span>
                        </button>
                        <ConfirmButton
                          disabled={busy}
                          confirmLabel={`Confirm disabling ${r.link.shorturl}`}
                          action={() => resolve(r, 'disable')}
                        >
                          <span aria-hidden="true">Disable link</span>
                          <span className="admin-sr">Disable link of report {r.id}</span>
                        </ConfirmButton>
                      </span>
                    )}
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
