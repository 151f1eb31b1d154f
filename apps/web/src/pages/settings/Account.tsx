import { FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
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
      <p className="hint">
        The user name is set when the account is made; the API offers no way to change it yourself
        (an administrator can).
      </p>
    </section>
  );
}

/** "Change e-mail" (`PUT /api/account/update` with `email`): 400 or 409 shown by the field. */
export function EmailForm(props: { account: Account; onSaved: () => Promise<void> }) {
  const [email, setEmail] = useState(props.account.email);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => setEmail(props.account.email), [props.account.email]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const res = await call(client.PUT('/api/account/update', { body: { email: email.trim() } }));
      setSaved(res.message);
      await props.onSaved();
    } catch (err) {
      setError(toApiError(err));
      input.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="email-title" noValidate>
      <h2 id="email-title">Email</h2>
      <Field label="Email address" names={['email']} error={error} hint="You sign in with it.">
        <input
          ref={input}
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </Field>
      <FormError error={error} names={['email']} />
      <p role="status" className="notice">
        {saved}
      </p>
      <div className="actions">
        <button
          type="submit"
          className="primary"
          disabled={busy || email.trim() === props.account.email}
        >
          Save email
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
