import './team.css';

import { useState } from 'react';

import { call, client } from '../api';
import { LoadState, PageHead, useLoad } from '../ui';
import { Keys } from './team/Keys';
import { Members } from './team/Members';

/**
 * The team page (`/team`): the workspaces the person belongs to (`GET /api/workspaces`), and for
 * the one chosen here its members (`/api/team*`) and named API keys (`/api/keys`, `/api/key/*`).
 * Another workspace than one's own is reached with `X-Workspace` on this page's own calls: the
 * rest of the dashboard acts in one's own workspace.
 */
export function TeamPage(props: { sub: string }) {
  void props.sub;
  const workspaces = useLoad(() => call(client.GET('/api/workspaces')).then((r) => r.data), []);
  const [chosen, setChosen] = useState<number | null>(null);
  const list = workspaces.data ?? [];
  const own = list[0];
  const current = list.find((w) => w.id === chosen) ?? own;
  // one's own workspace goes without X-Workspace, as every other page's calls do
  const workspace = current && own && current.id !== own.id ? current.id : undefined;
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
            {list.length > 1 && (
              <div className="field workspace-pick">
                <label htmlFor="team-workspace">Show the team of</label>
                <select
                  id="team-workspace"
                  value={current?.id}
                  onChange={(e) => setChosen(Number(e.target.value))}
                  aria-describedby="team-workspace-hint"
                >
                  {list.map((w) => (
                    <option key={w.id} value={w.id}>
                      {w.name} ({w.role})
                    </option>
                  ))}
                </select>
                <p id="team-workspace-hint" className="hint">
                  Members and keys below are this workspace's. The other pages act in your own
                  workspace; with the API, send <code>X-Workspace: {current?.id}</code>.
                </p>
              </div>
            )}
          </>
        )}
      </section>
      {current && (
        <>
          <Members key={`m-${current.id}`} workspace={workspace} canManage={manages} />
          {manages ? (
            <Keys key={`k-${current.id}`} workspace={workspace} />
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
