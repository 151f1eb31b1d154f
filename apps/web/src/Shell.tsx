import { ReactNode, useEffect, useRef, useState } from 'react';

import { session, SessionUser } from './api';
import { AdminPage } from './pages/Admin';
import { BioPage } from './pages/Bio';
import { DomainsPage } from './pages/Domains';
import { ImportPage } from './pages/Import';
import { LinksArea } from './pages/LinksArea';
import { QrPage } from './pages/Qr';
import { SettingsPage } from './pages/Settings';
import { StatsPage } from './pages/Stats';
import { TeamPage } from './pages/Team';
import { WebhooksPage } from './pages/Webhooks';
import { Link, navigate } from './router';

/**
 * The pages of the navigation, in order: path, the link's accessible name (CONTRACT "Sign-in for
 * people, and the dashboard" lists them: outside tests find them by these names, do not rename
 * them), and the page, given the rest of the path (`/stats/12` → `sub` `/12`). `admin`: shown to
 * admins only (the api refuses the others anyway).
 */
const PAGES: Array<{
  path: string;
  name: string;
  page: (sub: string) => ReactNode;
  admin?: boolean;
}> = [
  { path: '/links', name: 'Links', page: (sub) => <LinksArea sub={sub} /> },
  { path: '/qr', name: 'QR codes', page: (sub) => <QrPage sub={sub} /> },
  { path: '/bio', name: 'Bio pages', page: (sub) => <BioPage sub={sub} /> },
  { path: '/stats', name: 'Statistics', page: (sub) => <StatsPage sub={sub} /> },
  { path: '/domains', name: 'Domains', page: (sub) => <DomainsPage sub={sub} /> },
  { path: '/webhooks', name: 'Webhooks', page: (sub) => <WebhooksPage sub={sub} /> },
  { path: '/import', name: 'Import', page: (sub) => <ImportPage sub={sub} /> },
  { path: '/team', name: 'Team', page: (sub) => <TeamPage sub={sub} /> },
  { path: '/settings', name: 'Settings', page: (sub) => <SettingsPage sub={sub} /> },
  { path: '/admin', name: 'Admin', page: (sub) => <AdminPage sub={sub} />, admin: true },
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
  const pages = PAGES.filter((p) => !p.admin || props.user.admin);
  // an admin page opened by a non-admin still runs: it says "Admins only" (the api refuses them)
  const active = PAGES.find((p) => props.path === p.path || props.path.startsWith(`${p.path}/`));
  const main = useRef<HTMLElement>(null);
  const [signingOut, setSigningOut] = useState(false);

  // a new page: its title, and the focus on its content (as a page load would put it)
  useEffect(() => {
    document.title = `${active ? active.name : 'Page not found'} · Dashboard`;
    main.current?.focus();
  }, [active, props.path]);

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
            {pages.map((p) => (
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
        {active ? active.page(props.path.slice(active.path.length)) : <NotFound />}
      </main>
    </>
  );
}
