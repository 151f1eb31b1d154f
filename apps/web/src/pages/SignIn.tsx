import { FormEvent, useState } from 'react';

import { ApiError, session, SessionUser } from '../api';

/** The sign-in form: "Email", "Password", "Sign in"; the API's message when it refuses. */
export function SignIn(props: { notice: string | null; onSignedIn: (user: SessionUser) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(props.notice);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await session.signIn(email, password));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Signing in failed: try again.');
      setBusy(false);
    }
  };

  return (
    <main className="centered">
      <form className="card" onSubmit={submit} aria-labelledby="sign-in-title" noValidate>
        <h1 id="sign-in-title">Sign in</h1>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input
            id="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
