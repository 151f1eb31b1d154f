import { ReactNode, useEffect, useRef, useState } from 'react';

import { session, SessionUser } from './api';
import { Coming } from './pages/Coming';
import { LinksPage } from './pages/Links';
import { Link, navigate } from './router';

/**
 * The pages of the navigation, in order: path, the link's accessible name (CONTRACT "Sign-in for
 * people, and the dashboard" lists them: outside tests find them by these names), and the page.
 * A page not built yet is a `Coming` placeholder with its heading.
 */
const PAGES: Array<{ path: string; name: string; page: () => ReactNode }> = [
  { path: '/links', name: 'Links', page: () => <LinksPage /> },
  { path: '/qr', name: 'QR codes', page: () => <Coming title="QR codes" /> },
  { path: '/bio', name: 'Bio pages', page: () => <Coming title="Bio pages" /> },
  { path: '/stats', name: 'Statistics', page: () => <Coming title="Statistics" /> },
  { path: '/domains', name: 'Domains', page: () => <Coming title="Domains" /> },
  { path: '/webhooks', name: 'Webhooks', page: () => <Coming title="Webhooks" /> },
  { path: '/import', name: 'Import', page: () => <Coming title="Import" /> },
  { path: '/team', name: 'Team', page: () => <Coming title="Team" /> },
  { path: '/settings', name: 'Settings', page: () => <Coming title="Settings" /> },
];

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. <Link to="/links">Go to your links</Link>.
      </p>
    </>
  );
}

export function Shell(props: { user: SessionUser; path: string; onSignedOut: () => void }) {
  const active = PAGES.find((p) => props.path === p.path || props.path.startsWith(`${p.path}/`));
  const main = useRef<HTMLElement>(null);
  const [signingOut, setSigningOut] = useState(false);

  // a new page: its title, and the focus on its content (as a page load would put it)
  useEffect(() => {
    document.title = `${active ? active.name : 'Page not found'} · Dashboard`;
    main.current?.focus();
  }, [active]);

  const signOut = async () => {
    setSigningOut(true);
    try {
      await session.signOut();
    } catch {
      // the session is forgotten here either way
    }
    navigate('/sign-in', { replace: true });
    props.onSignedOut();
  };

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="bar">
        <span className="brand">Dashboard</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <Link to={p.path} current={p === active}>
                  {p.name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span className="who" title={props.user.email}>
            {props.user.username}
          </span>
          <button type="button" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {active ? active.page() : <NotFound />}
      </main>
    </>
  );
}
