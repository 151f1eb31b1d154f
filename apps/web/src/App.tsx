import { useEffect, useState } from 'react';

import {
  onSessionChanged,
  onSessionEnded,
  session,
  SESSION_ENDED,
  SessionUser,
  setCsrf,
} from './api';
import { Shell } from './Shell';
import { SignIn } from './pages/SignIn';
import { navigate, usePath } from './router';

/**
 * Who is signed in decides what shows: the sign-in page, or the app shell with its pages. The
 * session is read once at start (`GET /auth/session`); signing in or out changes it here.
 */
export function App() {
  const path = usePath();
  const [user, setUser] = useState<SessionUser | null | undefined>(undefined);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    session.current().then(setUser, (err: Error) => {
      setFailure(err.message);
      setUser(null);
    });
  }, []);

  // a session that ends under the app (expired, signed out elsewhere): back to sign-in, saying so
  useEffect(
    () =>
      onSessionEnded(() => {
        setCsrf(null);
        setFailure(SESSION_ENDED);
        setUser(null);
      }),
    [],
  );

  // a change of the person's own details (Settings): read the session again
  useEffect(
    () =>
      onSessionChanged(() => {
        session.current().then(
          (u) => u && setUser(u),
          () => undefined,
        );
      }),
    [],
  );

  useEffect(() => {
    if (user === undefined) return;
    if (user === null && path !== '/sign-in') navigate('/sign-in', { replace: true });
    if (user && (path === '/' || path === '/sign-in')) navigate('/links', { replace: true });
  }, [user, path]);

  if (user === undefined)
    return (
      <main className="centered" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (user === null)
    return (
      <SignIn
        notice={failure}
        onSignedIn={(u) => {
          setFailure(null);
          setUser(u);
        }}
      />
    );
  return (
    <Shell
      user={user}
      path={path}
      onSignedOut={() => {
        setUser(null);
      }}
    />
  );
}
