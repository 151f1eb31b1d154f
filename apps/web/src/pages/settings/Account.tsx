import { FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError, call, client, Schemas, sessionChanged } from '../../api';
import { Field, FormError, formatDate, toApiError } from '../../ui';

type Account = Schemas['AccountResponse'];

/** What the account is (`GET /api/account`): e-mail, user name, plan, dates. */
export function AccountDetails(props: { account: Account }) {
  const a = props.account;
  return (
    <section className="card" aria-labelledby="account-title">
      <h2 id="account-title">Account</h2>
      <dl className="account-facts">
        <dt>Email</dt>
        <dd>{a.email}</dd>
        <dt>User name</dt>
        <dd>{a.username}</dd>
        <dt>Plan</dt>
        <dd>{a.status === 'pro' ? 'Paid (pro)' : 'Free'}</dd>
        <dt>Plan expires</dt>
        <dd>{a.expires ? formatDate(a.expires) : 'never'}</dd>
        <dt>Registered</dt>
        <dd>{formatDate(a.registered)}</dd>
      </dl>
    </section>
  );
}

/**
 * E-mail and user name (`PUT /api/account/update` with the fields that changed): 400 and 409 (taken
 * by someone else) shown by the field they name.
 */
export function ProfileForm(props: { account: Account; onSaved: () => Promise<void> }) {
  const [email, setEmail] = useState(props.account.email);
  const [username, setUsername] = useState(props.account.username);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  useEffect(() => setEmail(props.account.email), [props.account.email]);
  useEffect(() => setUsername(props.account.username), [props.account.username]);

  const body = {
    email: email.trim() !== props.account.email ? email.trim() : undefined,
    username: username.trim() !== props.account.username ? username.trim() : undefined,
  };
  const changed = body.email !== undefined || body.username !== undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const res = await call(client.PUT('/api/account/update', { body }));
      setSaved(res.message);
      sessionChanged();
      await props.onSaved();
    } catch (err) {
      const failure = toApiError(err);
      setError(failure);
      // the field the API names, else the first
      const name = failure.field === 'username' ? 'username' : 'email';
      form.current?.querySelector<HTMLInputElement>(`input[name="${name}"]`)?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} className="card" onSubmit={submit} aria-labelledby="profile-title" noValidate>
      <h2 id="profile-title">Profile</h2>
      <Field label="Email address" names={['email']} error={error} hint="You sign in with it.">
        <input
          name="email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <Field
        label="User name"
        names={['username']}
        error={error}
        hint="3 to 32 of A–Z, a–z, 0–9, _, . and -; it names your workspace to your team."
      >
        <input
          name="username"
          autoComplete="nickname"
          required
          maxLength={32}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
        />
      </Field>
      <FormError error={error} names={['email', 'username']} />
      <p role="status" className="notice">
        {saved}
      </p>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !changed}>
          Save profile
        </button>
      </div>
    </form>
  );
}

/**
 * "Change password" (`PUT /api/account/update` with `password`). The API ends every session of
 * the account when it changes (docs/sessions.md), this one too: `onSignedOut` takes over.
 */
export function PasswordForm(props: { onSignedOut: () => void }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (password !== again) {
      setError(new ApiError('confirm: the two passwords differ', 0));
      return;
    }
    setBusy(true);
    try {
      await call(client.PUT('/api/account/update', { body: { password } }));
      props.onSignedOut();
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
      input.current?.focus();
    }
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="password-title" noValidate>
      <h2 id="password-title">Password</h2>
      <p className="hint">
        Changing it signs you out everywhere, this browser included: you then sign in with the new
        one. Your API keys keep working.
      </p>
      <Field label="New password" names={['password']} error={error} hint="5 to 128 characters.">
        <input
          ref={input}
          type="password"
          autoComplete="new-password"
          required
          minLength={5}
          maxLength={128}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      <Field label="New password again" names={['confirm']} error={error}>
        <input
          type="password"
          autoComplete="new-password"
          required
          value={again}
          onChange={(e) => setAgain(e.target.value)}
        />
      </Field>
      <FormError error={error} names={['password', 'confirm']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Change password
        </button>
      </div>
    </form>
  );
}
