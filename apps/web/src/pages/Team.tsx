import './team.css';

import { call, client, currentWorkspace } from '../api';
import { LoadState, PageHead, useLoad } from '../ui';
import { Keys } from './team/Keys';
import { Members } from './team/Members';

/**
 * The team page (`/team`): the workspaces the person belongs to (`GET /api/workspaces`), and for
 * the one chosen here its members (`/api/team*`) and named API keys (`/api/keys`, `/api/key/*`).
 * The workspace is the app's (the "Workspace" choice in the header, sent as `X-Workspace`).
 */
export function TeamPage(props: { sub: string }) {
  void props.sub;
  const workspaces = useLoad(() => call(client.GET('/api/workspaces')).then((r) => r.data), []);
  const list = workspaces.data ?? [];
  const current = list.find((w) => w.id === currentWorkspace()) ?? list[0];
  const role = current?.role;
  const manages = role === 'owner' || role === 'admin';

  return (
    <div className="team-page">
      <PageHead title="Team" />
      <section aria-labelledby="workspaces-title">
        <h2 id="workspaces-title">Workspaces</h2>
        <LoadState loaded={workspaces} what="Workspaces" />
        {list.length > 0 && (
          <>
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Workspaces you belong to</caption>
                <thead>
                  <tr>
                    <th scope="col">Workspace</th>
                    <th scope="col">Id</th>
                    <th scope="col">Your role</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((w) => (
                    <tr key={w.id}>
                      <td>{w.role === 'owner' ? `${w.name} (yours)` : w.name}</td>
                      <td>{w.id}</td>
                      <td>{w.role}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {list.length > 1 && current && (
              <p className="hint">
                Members and keys below are those of {current.name}&apos;s workspace: choose another
                with &ldquo;Workspace&rdquo; at the top of the page. With the API, send{' '}
                <code>X-Workspace: {current.id}</code>.
              </p>
            )}
          </>
        )}
      </section>
      {current && (
        <>
          <Members key={`m-${current.id}`} canManage={manages} />
          {manages ? (
            <Keys key={`k-${current.id}`} />
          ) : (
            <section aria-labelledby="keys-title">
              <h2 id="keys-title">API keys</h2>
              <p>Named keys are managed by the workspace's admins; your role here is {role}.</p>
            </section>
          )}
        </>
      )}
    </div>
  );
}
