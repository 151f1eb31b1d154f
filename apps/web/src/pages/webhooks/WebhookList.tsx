import { useEffect, useRef, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
import { Link } from '../../router';
import {
  ConfirmButton,
  FormError,
  formatDate,
  LoadState,
  PageHead,
  Pager,
  ShownOnce,
  toApiError,
  useFocusLater,
  useLoad,
} from '../../ui';
import { WebhookForm } from './WebhookForm';

type Webhook = Schemas['WebhookView'];

const PER_PAGE = 10;

/** One webhook of the list: its URL, status, events, and Deliveries / Edit / Delete. */
function WebhookItem(props: {
  webhook: Webhook;
  onChanged: () => Promise<void>;
  onDeleted: () => void;
}) {
  const w = props.webhook;
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  // after the form closes, back to the button that opened it
  const { ref: editButton, focusLater: focusEdit } = useFocusLater<HTMLButtonElement>();

  const close = () => {
    setEditing(false);
    focusEdit();
  };

  const remove = async () => {
    setError(null);
    try {
      await call(client.DELETE('/api/webhook/{id}/delete', { params: { path: { id: w.id } } }));
      await props.onChanged();
      props.onDeleted();
    } catch (err) {
      setError(toApiError(err));
    }
  };

  return (
    <li className="webhook">
      <div className="webhook-head">
        <span className="webhook-url">{w.url}</span>
        <span className={`badge ${w.status}`}>{w.status === 'active' ? 'Active' : 'Disabled'}</span>
      </div>
      <p className="meta">
        Events: {w.events.join(', ')}
        <br />
        Added {formatDate(w.date)}
        {w.failingSince && <> · failing since {formatDate(w.failingSince)}</>}
      </p>
      {w.status === 'disabled' && w.disabledReason && (
        <p className="meta">Disabled: {w.disabledReason}</p>
      )}
      <div className="actions">
        <Link to={`/webhooks/${w.id}`} className="button-link">
          Deliveries<span className="visually-hidden"> of {w.url}</span>
        </Link>
        <button
          type="button"
          ref={editButton}
          aria-expanded={editing}
          onClick={() => (editing ? close() : setEditing(true))}
        >
          Edit<span className="visually-hidden"> {w.url}</span>
        </button>
        <ConfirmButton confirmLabel={`Confirm deleting ${w.url}`} action={remove}>
          Delete<span className="visually-hidden"> {w.url}</span>
        </ConfirmButton>
      </div>
      <FormError error={error} />
      {editing && (
        <WebhookForm
          webhook={w}
          onCancel={close}
          onSaved={async () => {
            await props.onChanged();
            close();
          }}
        />
      )}
    </li>
  );
}

/**
 * The webhooks page: `GET /api/webhooks` a page at a time, "Add webhook" (its signing secret
 * shown once), each webhook's Deliveries, Edit and Delete.
 */
export function WebhookList() {
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<{ id: number; secret: string } | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const secretBox = useRef<HTMLDivElement>(null);
  const loaded = useLoad(
    () =>
      call(client.GET('/api/webhooks', { params: { query: { page, limit: PER_PAGE } } })).then(
        (r) => r.data,
      ),
    [page],
  );
  const list = loaded.data;

  useEffect(() => {
    if (added) secretBox.current?.querySelector('input')?.focus();
  }, [added]);

  // a deletion that empties the last page goes back one
  useEffect(() => {
    if (list && list.webhooks.length === 0 && page > 1) setPage(list.maxpage);
  }, [list, page]);

  return (
    <>
      <PageHead title="Webhooks">
        <button
          type="button"
          className="primary"
          ref={addButton}
          aria-expanded={adding}
          onClick={() => {
            setAdded(null);
            setAdding(!adding);
          }}
        >
          Add webhook
        </button>
      </PageHead>
      <p className="hint webhooks-intro">
        A webhook sends the events of your links, QR codes and team to a URL of yours, signed with
        its secret (<code>X-Webhook-Signature</code>).
      </p>
      {adding && (
        <WebhookForm
          onCancel={() => {
            setAdding(false);
            addButton.current?.focus();
          }}
          onSaved={(result) => {
            setAdding(false);
            if (result) setAdded(result);
            void loaded.reload();
          }}
        />
      )}
      {added && (
        <div ref={secretBox}>
          <ShownOnce
            label="Signing secret"
            value={added.secret}
            onDone={() => {
              setAdded(null);
              addButton.current?.focus();
            }}
          />
        </div>
      )}
      <LoadState loaded={loaded} what="Webhooks" />
      {list && list.webhooks.length === 0 && page === 1 && <p>No webhooks yet.</p>}
      {list && list.webhooks.length > 0 && (
        <>
          <p className="meta">
            {list.result} webhook{list.result === 1 ? '' : 's'}
          </p>
          <ul className="webhooks">
            {list.webhooks.map((w) => (
              <WebhookItem
                key={w.id}
                webhook={w}
                onChanged={loaded.reload}
                // the item is gone: the focus goes to the page's first action
                onDeleted={() => addButton.current?.focus()}
              />
            ))}
          </ul>
          <Pager page={list.currentpage} maxpage={list.maxpage} onPage={setPage} />
        </>
      )}
    </>
  );
}
