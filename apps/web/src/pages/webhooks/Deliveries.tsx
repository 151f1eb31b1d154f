import { useEffect, useRef, useState } from 'react';

import { ApiError, call, client } from '../../api';
import { Link } from '../../router';
import { FormError, formatDate, LoadState, PageHead, Pager, toApiError, useLoad } from '../../ui';

const PER_PAGE = 20;
/**
 * How often the list is read again while a delivery is pending: every 1.5 s for the first
 * 30 s (a test or a fresh event), then every 15 s (a retry waits minutes to hours).
 */
const POLL_MS = 1500;
const SLOW_POLL_MS = 15_000;
const FAST_POLLS = 20;

/**
 * A webhook's deliveries (`GET /api/webhook/:id/deliveries`, a page at a time, read again while
 * one is pending) and "Send test" (`POST /api/webhook/:id/test`), whose delivery then shows.
 */
export function Deliveries(props: { id: number }) {
  const { id } = props;
  const [page, setPage] = useState(1);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const testButton = useRef<HTMLButtonElement>(null);
  const polls = useRef(0);

  // the webhook itself, for its URL and status (a user has at most 20: one page of 100)
  const webhook = useLoad(
    () =>
      call(client.GET('/api/webhooks', { params: { query: { limit: 100 } } })).then(
        (r) => r.data.webhooks.find((w) => w.id === id) ?? null,
      ),
    [id],
  );
  const loaded = useLoad(
    () =>
      call(
        client.GET('/api/webhook/{id}/deliveries', {
          params: { path: { id }, query: { page, limit: PER_PAGE } },
        }),
      ).then((r) => r.data),
    [id, page],
  );
  const list = loaded.data;
  const pending = !!list?.deliveries.some((d) => d.status === 'pending');
  const { reload } = loaded;

  useEffect(() => {
    if (!pending) {
      polls.current = 0;
      return;
    }
    polls.current += 1;
    const timer = setTimeout(
      () => void reload(),
      polls.current > FAST_POLLS ? SLOW_POLL_MS : POLL_MS,
    );
    return () => clearTimeout(timer);
  }, [pending, list, reload]);

  const sendTest = async () => {
    setSending(true);
    setError(null);
    setSent(null);
    try {
      const answer = await call(
        client.POST('/api/webhook/{id}/test', { params: { path: { id } } }),
      );
      setSent(`${answer.message} (delivery ${answer.delivery})`);
      polls.current = 0;
      if (page !== 1) setPage(1);
      else await reload();
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setSending(false);
      testButton.current?.focus();
    }
  };

  const hook = webhook.data;
  return (
    <>
      <p className="back">
        <Link to="/webhooks">← All webhooks</Link>
      </p>
      <PageHead title="Webhook deliveries">
        <button
          type="button"
          className="primary"
          ref={testButton}
          onClick={sendTest}
          disabled={sending || hook === null || hook?.status === 'disabled'}
        >
          Send test
        </button>
        <button type="button" onClick={() => void reload()} disabled={loaded.loading}>
          Reload
        </button>
      </PageHead>
      <LoadState loaded={webhook} what="The webhook" />
      {hook === null && (
        <p className="error" role="alert">
          There is no webhook {id}.
        </p>
      )}
      {hook && (
        <p className="webhook-summary">
          <strong>{hook.url}</strong> · {hook.status === 'active' ? 'Active' : 'Disabled'} ·{' '}
          {hook.events.join(', ')}
        </p>
      )}
      {hook?.status === 'disabled' && (
        <p className="hint">
          {hook.disabledReason ? `Disabled: ${hook.disabledReason}. ` : 'Disabled. '}
          Nothing is sent to it, tests included: make it active again with Edit on the{' '}
          <Link to="/webhooks">webhooks page</Link>.
        </p>
      )}
      <div role="status" className="sent">
        {sent}
      </div>
      <FormError error={error} />
      {hook !== null && <LoadState loaded={loaded} what="Deliveries" />}
      {list && list.deliveries.length === 0 && (
        <p>No deliveries yet: send a test, or wait for an event.</p>
      )}
      {list && list.deliveries.length > 0 && (
        <>
          <p className="meta">
            {list.result} deliver{list.result === 1 ? 'y' : 'ies'} (the newest 100 are kept)
            {pending && ' · updating while some are pending'}
          </p>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Deliveries">
            <table className="deliveries">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Response</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Time</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {list.deliveries.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <code>{d.event}</code>
                    </td>
                    <td>
                      <span className={`badge ${d.status}`}>{d.status}</span>
                    </td>
                    <td>{d.responseStatus ?? '—'}</td>
                    <td>{d.attempts}</td>
                    <td>{formatDate(d.date)}</td>
                    <td>{d.message ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={list.currentpage} maxpage={list.maxpage} onPage={setPage} />
        </>
      )}
    </>
  );
}
