import './admin.css';

import { call, client } from '../api';
import { LoadState, SubNav, useLoad } from '../ui';
import { BlocklistSection } from './admin/Blocklist';
import { AdminsOnly } from './admin/common';
import { PlansSection } from './admin/Plans';
import { ReportsSection } from './admin/Reports';
import { TakedownsSection } from './admin/Takedowns';
import { UserDetail } from './admin/UserDetail';
import { UsersSection } from './admin/Users';

/** The sections of the admin area, in the order of its sub-navigation. */
const SECTIONS = [
  { to: '/admin', name: 'Users' },
  { to: '/admin/plans', name: 'Plans' },
  { to: '/admin/blocklist', name: 'Blocklist' },
  { to: '/admin/links', name: 'Disabled links' },
  { to: '/admin/reports', name: 'Reports' },
];

/**
 * The admin area (`/admin…`, admins only): users (`/admin`, one user at `/admin/users/<id>`),
 * plans, the blocklist, disabled links and abuse reports. The plans are loaded first: every section needs them
 * (plan names, the plan a user changes to) and their 403 tells a non-admin apart, who gets the
 * "Admins only" message instead of the sections.
 */
export function AdminPage(props: { sub: string }) {
  const plans = useLoad(async () => (await call(client.GET('/api/plans'))).data, []);
  if (plans.error?.status === 403 || plans.error?.status === 401) return <AdminsOnly />;
  if (!plans.data) return <LoadState loaded={plans} what="The admin area" />;

  const path = `/admin${props.sub}`;
  const user = /^\/admin\/users\/(\d+)$/.exec(path);
  const current = user ? '/admin' : path;
  let section;
  if (user) section = <UserDetail key={user[1]} id={Number(user[1])} plans={plans.data} />;
  else if (path === '/admin') section = <UsersSection plans={plans.data} />;
  else if (path === '/admin/plans') section = <PlansSection plans={plans.data} />;
  else if (path === '/admin/blocklist') section = <BlocklistSection />;
  else if (path === '/admin/links') section = <TakedownsSection />;
  else if (path === '/admin/reports') section = <ReportsSection />;
  else
    section = (
      <>
        <h1>Admin</h1>
        <p role="alert">Nothing lives at this address.</p>
      </>
    );
  return (
    <div className="admin-area">
      <SubNav label="Admin area" items={SECTIONS} current={current} />
      {section}
    </div>
  );
}
