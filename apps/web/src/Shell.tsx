import { ComponentType, lazy, ReactNode, Suspense, useEffect, useRef, useState } from 'react';

import { call, client, currentWorkspace, session, SessionUser, setWorkspace } from './api';
import { LinksArea } from './pages/LinksArea';
import { Link, navigate } from './router';
import { useLoad } from './ui';

/**
 * A page loaded when first opened (its own chunk): the first load carries the shell and the links
 * area only.
 */
function later(
  load: () => Promise<Record<string, ComponentType<{ sub: string }>>>,
  name: string,
): ComponentType<{ sub: string }> {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

const QrPage = later(() => import('./pages/Qr'), 'QrPage');
const BioPage = later(() => import('./pages/Bio'), 'BioPage');
const StatsPage = later(() => import('./pages/Stats'), 'StatsPage');
const DomainsPage = later(() => import('./pages/Domains'), 'DomainsPage');
const WebhooksPage = later(() => import('./pages/Webhooks'), 'WebhooksPage');
const ImportPage = later(() => import('./pages/Import'), 'ImportPage');
const TeamPage = later(() => import('./pages/Team'), 'TeamPage');
const SettingsPage = later(() => import('./pages/Settings'), 'SettingsPage');
const AdminPage = later(() => import('./pages/Admin'), 'AdminPage');

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

/** Where the chosen workspace is kept for the tab (a reload keeps it; a new tab starts at one's own). */
const WORKSPACE_KEY = 'lm_workspace';

function storedWorkspace(): number | null {
  const value = Number(window.sessionStorage.getItem(WORKSPACE_KEY));
  return Number.isInteger(value) && value > 0 ? value : null;
}

/**
 * "Workspace": the workspaces the person belongs to (`GET /api/workspaces`), shown when there is
 * more than one; the choice is sent as `X-Workspace` on every call of every page (api.ts), and
 * the page starts again in it. A stored choice the person no longer belongs to falls back to
 * their own workspace.
 */
function WorkspacePicker(props: { onChange: () => void }) {
  const list = useLoad(() => call(client.GET('/api/workspaces')).then((r) => r.data), []);
  const workspaces = list.data ?? [];
  const own = workspaces.find((w) => w.role === 'owner');
  useEffect(() => {
    const chosen = currentWorkspace();
    if (
      list.data &&
      chosen !== null &&
      !list.data.some((w) => w.id === chosen && w.role !== 'owner')
    ) {
      setWorkspace(null);
      window.sessionStorage.removeItem(WORKSPACE_KEY);
      props.onChange();
    }
  }, [list.data, props]);
  if (workspaces.length < 2) return null;
  const choose = (id: number) => {
    const other = own && id === own.id ? null : id;
    setWorkspace(other);
    if (other === null) window.sessionStorage.removeItem(WORKSPACE_KEY);
    else window.sessionStorage.setItem(WORKSPACE_KEY, String(other));
    props.onChange();
  };
  return (
    <div className="workspace">
      <label htmlFor="workspace">Workspace</label>
      <select
        id="workspace"
        value={currentWorkspace() ?? own?.id}
        onChange={(e) => choose(Number(e.target.value))}
      >
        {workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.role === 'owner' ? `${w.name} (yours)` : `${w.name} (${w.role})`}
          </option>
        ))}
      </select>
    </div>
  );
}

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
  // the workspace chosen in this tab, before any page calls the api
  const [workspace, setShown] = useState(() => {
    setWorkspace(storedWorkspace());
    return currentWorkspace();
  });

  // a new page: its title, and the focus on its content (as a page load would put it)
  useEffect(() => {
    document.title = `${active ? active.name : 'Page not found'} · Dashboard`;
    main.current?.focus();
  }, [active, props.path]);

  const signOut = async () => {
    setSigningOut(true);
    try {
      setWorkspace(null);
      window.sessionStorage.removeItem(WORKSPACE_KEY);
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
        <WorkspacePicker onChange={() => setShown(currentWorkspace())} />
        <div className="account">
          <span className="who" title={props.user.email}>
            {props.user.username}
          </span>
          <button type="button" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      {/* a new workspace starts the page again: nothing of the other one stays on screen */}
      <main id="main" ref={main} tabIndex={-1} key={workspace ?? 'own'}>
        <Suspense fallback={<p aria-busy="true">Loading the page…</p>}>
          {active ? active.page(props.path.slice(active.path.length)) : <NotFound />}
        </Suspense>
      </main>
    </>
  );
}
