import { FormEvent, useEffect, useId, useRef, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
import { Field, fieldMatches, FormError, toApiError } from '../../ui';
import { describeEvent, EVENTS, WebhookEvent } from './events';

type Webhook = Schemas['WebhookView'];

/** The API's names of the fields this form shows (the rest goes to FormError). */
const NAMES = ['url', 'events', 'secret', 'active'];

/**
 * Adding a webhook (`POST /api/webhook/add`: url, events, an optional secret) or changing one
 * (`PUT /api/webhook/:id/update`: only the fields that changed, `active` to disable or re-enable
 * it). `onSaved` gets the secret the api shows once, when adding.
 */
export function WebhookForm(props: {
  webhook?: Webhook;
  onSaved: (added?: { id: number; secret: string }) => void;
  onCancel: () => void;
}) {
  const editing = props.webhook;
  const [url, setUrl] = useState(editing?.url ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>(editing?.events ?? ['link.created']);
  const [secret, setSecret] = useState('');
  const [active, setActive] = useState(editing ? editing.status === 'active' : true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const first = useRef<HTMLInputElement>(null);
  const secretInput = useRef<HTMLInputElement>(null);
  const ids = useId();
  const eventsError = `${ids}-events-error`;

  useEffect(() => first.current?.focus(), []);

  const toggle = (event: WebhookEvent, on: boolean) =>
    setEvents((now) =>
      on ? EVENTS.filter((e) => e === event || now.includes(e)) : now.filter((e) => e !== event),
    );

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (editing) {
        const body: Schemas['UpdateWebhookDto'] = {};
        if (url.trim() !== editing.url) body.url = url.trim();
        if (events.join() !== editing.events.join()) body.events = events;
        if (secret) body.secret = secret;
        if (active !== (editing.status === 'active')) body.active = active;
        if (Object.keys(body).length)
          await call(
            client.PUT('/api/webhook/{id}/update', { params: { path: { id: editing.id } }, body }),
          );
        props.onSaved();
      } else {
        const added = await call(
          client.POST('/api/webhook/add', {
            body: { url: url.trim(), events, ...(secret ? { secret } : {}) },
          }),
        );
        props.onSaved({ id: added.id, secret: added.secret });
      }
    } catch (err) {
      const failure = toApiError(err);
      setError(failure);
      // the focus goes to the field the API names (the URL when it names none)
      if (failure.field === 'secret') secretInput.current?.focus();
      else if (failure.field === 'url' || !fieldMatches(failure.field, NAMES))
        first.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const eventsInvalid = fieldMatches(error?.field ?? null, ['events']);
  const title = editing ? `Edit webhook` : 'New webhook';
  return (
    <form className="card webhook-form" onSubmit={submit} aria-label={title} noValidate>
      <h2>{title}</h2>
      <Field
        label="Endpoint URL"
        names={['url']}
        error={error}
        hint="An https address (plain http only for hosts the service's operator allows)."
      >
        <input
          ref={first}
          type="url"
          inputMode="url"
          placeholder="https://hooks.example.com/short-links"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </Field>
      <fieldset
        className="events"
        aria-invalid={eventsInvalid || undefined}
        aria-describedby={eventsInvalid ? eventsError : undefined}
      >
        <legend>Events</legend>
        {EVENTS.map((event) => (
          <label key={event} className="check">
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(e) => toggle(event, e.target.checked)}
            />
            <span>
              <code>{event}</code> <span className="muted">{describeEvent(event)}</span>
            </span>
          </label>
        ))}
        {eventsInvalid && (
          <p id={eventsError} className="error" role="alert">
            {error!.message}
          </p>
        )}
      </fieldset>
      <Field
        label={editing ? 'New signing secret (optional)' : 'Signing secret (optional)'}
        names={['secret']}
        error={error}
        hint={
          editing
            ? 'Leave empty to keep the current one. 16 to 128 printable characters, no spaces.'
            : 'Leave empty and the service makes one (shown once). 16 to 128 printable characters, no spaces.'
        }
      >
        <input
          ref={secretInput}
          type="text"
          autoComplete="off"
          spellCheck={false}
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
        />
      </Field>
      {editing && (
        <div className="field">
          <label className="check">
            <input
              type="checkbox"
              checked={active}
              onChange={(e) => setActive(e.target.checked)}
              aria-invalid={fieldMatches(error?.field ?? null, ['active']) || undefined}
            />
            <span>Active (deliveries are sent; re-enables a webhook the service disabled)</span>
          </label>
          {fieldMatches(error?.field ?? null, ['active']) && (
            <p className="error" role="alert">
              {error!.message}
            </p>
          )}
        </div>
      )}
      <FormError error={error} names={NAMES} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {editing ? 'Save' : 'Add'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
