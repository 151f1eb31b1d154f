import { FormEvent, useState } from 'react';

import { ApiError, call, client } from '../../api';
import { Link, navigate } from '../../router';
import {
  ConfirmButton,
  Field,
  FormError,
  formatDate,
  LoadState,
  PageHead,
  ShownOnce,
  toApiError,
  useLoad,
  toApiDateTime,
  errorsByField,
} from '../../ui';
import { AdminUser, Notice, Plan, planName, setFlash } from './common';

/**
 * One user (`/admin/users/<id>`, `GET /api/user/:id`): the details, the API key (hidden until
 * asked for), a new key (shown once), a one-time login link, the plan, and deleting the user.
 */
export function UserDetail(props: { id: number; plans: Plan[] }) {
  const user = useLoad(
    async () =>
      (await call(client.GET('/api/user/{id}', { params: { path: { id: props.id } } }))).data,
    [props.id],
  );

  if (!user.data)
    return (
      <>
        <h1>User</h1>
        <p>
          <Link to="/admin">Back to the users</Link>
        </p>
        <LoadState loaded={user} what="The user" />
      </>
    );
  const u = user.data;
  return (
    <>
      <PageHead title={`User ${u.username}`}>
        <Link to="/admin">Back to the users</Link>
      </PageHead>
      <dl className="card admin-facts">
        <dt>ID</dt>
        <dd>{u.id}</dd>
        <dt>E-mail</dt>
        <dd>{u.email}</dd>
        <dt>Username</dt>
        <dd>{u.username}</dd>
        <dt>Status</dt>
        <dd>{u.status}</dd>
        <dt>Plan</dt>
        <dd>{planName(props.plans, u.planid)}</dd>
        <dt>Membership expires</dt>
        <dd>{u.expires ? formatDate(u.expires) : 'Never'}</dd>
        <dt>Registered</dt>
        <dd>{formatDate(u.registered)}</dd>
      </dl>
      <KeyCard user={u} onRotated={() => void user.reload()} />
      <LoginLinkCard user={u} />
      <PlanForm user={u} plans={props.plans} onChanged={() => user.reload()} />
      <DeleteCard user={u} />
    </>
  );
}

/** The user's API key, shown on request; "Rotate API key" gives a new one, shown once. */
function KeyCard(props: { user: AdminUser; onRotated: () => void }) {
  const [shown, setShown] = useState(false);
  const [rotated, setRotated] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  const rotate = async () => {
    setError(null);
    try {
      const { apikey } = await call(
        client.POST('/api/user/{id}/key/rotate', { params: { path: { id: props.user.id } } }),
      );
      setShown(false);
      setRotated(apikey);
      props.onRotated();
    } catch (err) {
      setError(toApiError(err));
    }
  };

  return (
    <section className="card" aria-labelledby="admin-key">
      <h2 id="admin-key">API key</h2>
      {rotated ? (
        <ShownOnce label="New API key" value={rotated} onDone={() => setRotated(null)} />
      ) : props.user.apikey === null ? (
        <p>
          The stored copy of this key cannot be read (it was sealed under another secret); the key
          still works. Rotate it to get a readable one.
        </p>
      ) : shown ? (
        <Field label="Current API key" hint="A secret: do not share it.">
          <input readOnly value={props.user.apikey} onFocus={(e) => e.currentTarget.select()} />
        </Field>
      ) : null}
      <FormError error={error} />
      <div className="actions">
        {!rotated && props.user.apikey !== null && (
          <button type="button" aria-expanded={shown} onClick={() => setShown(!shown)}>
            {shown ? 'Hide API key' : 'Show API key'}
          </button>
        )}
        <ConfirmButton
          confirmLabel={`Confirm rotating the API key of ${props.user.username}: the old key stops working`}
          action={rotate}
        >
          Rotate API key
        </ConfirmButton>
      </div>
    </section>
  );
}

/** `GET /api/user/login/:id`: a link that signs the user in once, within the hour. */
function LoginLinkCard(props: { user: AdminUser }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const issue = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await call(
        client.GET('/api/user/login/{id}', { params: { path: { id: props.user.id } } }),
      );
      setUrl(answer.url);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="admin-login">
      <h2 id="admin-login">Login link</h2>
      <p className="hint">
        A link that signs {props.user.username} in without a password: valid one hour, usable once.
        Anyone holding it gets in, so send it privately.
      </p>
      {url && <ShownOnce label="Login link" value={url} onDone={() => setUrl(null)} />}
      <FormError error={error} />
      {!url && (
        <div className="actions">
          <button type="button" onClick={issue} disabled={busy}>
            Create login link
          </button>
        </div>
      )}
    </section>
  );
}

const PLAN_FIELDS = ['planid', 'type', 'expiration'];

/** `PUT /api/plan/:planid/user/:userid`: the plan, the billing period, an optional expiry. */
function PlanForm(props: { user: AdminUser; plans: Plan[]; onChanged: () => Promise<void> }) {
  const [planid, setPlanid] = useState(String(props.user.planid));
  const [type, setType] = useState<'monthly' | 'yearly' | 'lifetime'>('monthly');
  const [expiration, setExpiration] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const errs = errorsByField(error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await call(
        client.PUT('/api/plan/{planid}/user/{userid}', {
          params: { path: { planid: Number(planid), userid: props.user.id } },
          body: { type, expiration: toApiDateTime(expiration) },
        }),
      );
      await props.onChanged();
      setExpiration('');
      setDone(
        `${props.user.username} is now on the plan ${planName(props.plans, Number(planid))}.`,
      );
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card admin-form" aria-labelledby="admin-plan" onSubmit={submit} noValidate>
      <h2 id="admin-plan">Plan</h2>
      <div className="grid-2">
        <Field label="Plan" names={['planid']} error={errs.of('planid')}>
          <select value={planid} onChange={(e) => setPlanid(e.target.value)}>
            {props.plans.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
                {p.free ? ' (free)' : ''}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Billing period"
          names={['type']}
          error={errs.of('type')}
          hint="Sets the expiry when none is given: a month, a year, or never."
        >
          <select value={type} onChange={(e) => setType(e.target.value as typeof type)}>
            <option value="monthly">Monthly</option>
            <option value="yearly">Yearly</option>
            <option value="lifetime">Lifetime</option>
          </select>
        </Field>
        <Field
          label="Expires (optional)"
          names={['expiration']}
          error={errs.of('expiration')}
          hint="Your local time; overrides the billing period. A free plan never expires."
        >
          <input
            type="datetime-local"
            step={1}
            value={expiration}
            onChange={(e) => setExpiration(e.target.value)}
          />
        </Field>
      </div>
      <FormError error={errs.rest(PLAN_FIELDS)} />
      {done && <Notice>{done}</Notice>}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Change plan
        </button>
      </div>
    </form>
  );
}

/** Deleting the user and everything it owns (an admin cannot delete itself: the api says so). */
function DeleteCard(props: { user: AdminUser }) {
  const [error, setError] = useState<ApiError | null>(null);
  const remove = async () => {
    setError(null);
    try {
      await call(
        client.DELETE('/api/user/{id}/delete', { params: { path: { id: props.user.id } } }),
      );
      setFlash(`User ${props.user.username} (${props.user.email}) was deleted.`);
      navigate('/admin');
    } catch (err) {
      setError(toApiError(err));
    }
  };
  return (
    <section className="card" aria-labelledby="admin-delete">
      <h2 id="admin-delete">Delete user</h2>
      <p className="hint">
        Deletes the user with everything it owns: links, QR codes, domains, campaigns, channels,
        pixels, overlays, splash pages. This cannot be undone.
      </p>
      <FormError error={error} />
      <div className="actions">
        <ConfirmButton
          confirmLabel={`Confirm deleting the user ${props.user.email}`}
          action={remove}
        >
          Delete user
        </ConfirmButton>
      </div>
    </section>
  );
}
