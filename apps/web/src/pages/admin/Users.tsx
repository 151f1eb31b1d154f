import { FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError, call, client } from '../../api';
import { Link } from '../../router';
import {
  Field,
  FormError,
  formatDate,
  LoadState,
  PageHead,
  toApiError,
  useLoad,
  toApiDateTime,
  errorsByField,
} from '../../ui';
import { AdminUser, Notice, Plan, planName, takeFlash } from './common';

/** Users per page of the list (the api's default is 100, up to 1000). */
const LIMIT = 20;

type Filter = '' | 'admin' | 'free' | 'pro';

/**
 * The users (`/admin`): search by e-mail, filter by kind, pages of the api (`GET /api/users`
 * answers a plain array: "Next" is offered while a page comes back full), and "Add user".
 */
export function UsersSection(props: { plans: Plan[] }) {
  const [query, setQuery] = useState<{ email: string; filter: Filter; page: number }>({
    email: '',
    filter: '',
    page: 1,
  });
  const [email, setEmail] = useState('');
  const [filter, setFilter] = useState<Filter>('');
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<{ text: string; id?: number } | null>(() => {
    const flash = takeFlash();
    return flash ? { text: flash } : null;
  });
  const addButton = useRef<HTMLButtonElement>(null);

  const users = useLoad(
    async () =>
      (
        await call(
          client.GET('/api/users', {
            params: {
              query: {
                email: query.email || undefined,
                filter: query.filter || undefined,
                page: query.page,
                limit: LIMIT,
              },
            },
          }),
        )
      ).data,
    [query],
  );

  const search = (e: FormEvent) => {
    e.preventDefault();
    setQuery({ email: email.trim(), filter, page: 1 });
  };

  // back on "Add user" when the form is cancelled (after a creation the notice takes the focus)
  const refocus = useRef(false);
  useEffect(() => {
    if (adding || !refocus.current) return;
    refocus.current = false;
    addButton.current?.focus();
  }, [adding]);
  const closeForm = () => {
    refocus.current = true;
    setAdding(false);
  };

  const list = users.data ?? [];
  const searching = query.email !== '' || query.filter !== '';
  return (
    <>
      <PageHead title="Users">
        <button
          type="button"
          className="primary"
          ref={addButton}
          aria-expanded={adding}
          onClick={() => {
            setNotice(null);
            setAdding(true);
          }}
        >
          Add user
        </button>
      </PageHead>

      {adding && (
        <AddUserForm
          plans={props.plans}
          onCancel={closeForm}
          onCreated={(created) => {
            setAdding(false);
            setNotice({ text: `User ${created.username} was created.`, id: created.id });
            void users.reload();
          }}
        />
      )}
      {notice && (
        <Notice key={notice.text} onDismiss={() => setNotice(null)}>
          {notice.text}{' '}
          {notice.id !== undefined && (
            <Link to={`/admin/users/${notice.id}`}>Open its details</Link>
          )}
        </Notice>
      )}

      <form className="search admin-search" role="search" aria-label="Users" onSubmit={search}>
        <Field label="E-mail contains" names={['email']} error={users.error}>
          <input type="search" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Show" names={['filter']} error={users.error}>
          <select value={filter} onChange={(e) => setFilter(e.target.value as Filter)}>
            <option value="">All users</option>
            <option value="admin">Admins</option>
            <option value="pro">Paid plan (pro)</option>
            <option value="free">Free plan</option>
          </select>
        </Field>
        <button type="submit">Search</button>
      </form>

      <LoadState loaded={users} what="Users" />
      {users.data && list.length === 0 && (
        <p>{searching ? 'No user matches this search.' : 'No users on this page.'}</p>
      )}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="admin-users">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Username</th>
                <th scope="col">Status</th>
                <th scope="col">Plan</th>
                <th scope="col">Expires</th>
                <th scope="col">Registered</th>
              </tr>
            </thead>
            <tbody>
              {list.map((u: AdminUser) => (
                <tr key={u.id}>
                  <td>
                    <Link to={`/admin/users/${u.id}`}>{u.email}</Link>
                  </td>
                  <td>{u.username}</td>
                  <td>{u.status}</td>
                  <td>{planName(props.plans, u.planid)}</td>
                  <td>{u.expires ? formatDate(u.expires) : 'Never'}</td>
                  <td>{formatDate(u.registered)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(query.page > 1 || list.length === LIMIT) && (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            disabled={query.page <= 1 || users.loading}
            onClick={() => setQuery({ ...query, page: query.page - 1 })}
          >
            Previous
          </button>
          <span>Page {query.page}</span>
          <button
            type="button"
            disabled={list.length < LIMIT || users.loading}
            onClick={() => setQuery({ ...query, page: query.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}

const ADD_FIELDS = ['username', 'email', 'password', 'planid', 'expiration'];

/** "Add user" (`POST /api/user/add`): every field of the api, its errors by their field. */
function AddUserForm(props: {
  plans: Plan[];
  onCancel: () => void;
  onCreated: (user: { id: number; username: string }) => void;
}) {
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [planid, setPlanid] = useState('');
  const [expiration, setExpiration] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  const errs = errorsByField(error);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await call(
        client.POST('/api/user/add', {
          body: {
            username: username.trim(),
            email: email.trim(),
            password,
            planid: planid ? Number(planid) : undefined,
            expiration: toApiDateTime(expiration),
          },
        }),
      );
      props.onCreated(data);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card admin-form" aria-label="Add user" onSubmit={submit} noValidate>
      <h2>Add user</h2>
      <div className="grid-2">
        <Field
          label="Username"
          names={['username']}
          error={errs.of('username')}
          hint="3 to 32 of A–Z, a–z, 0–9, _ . -"
        >
          <input
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            autoComplete="off"
            ref={first}
            required
          />
        </Field>
        <Field label="E-mail" names={['email']} error={errs.of('email')}>
          <input
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoComplete="off"
            required
          />
        </Field>
        <Field
          label="Password"
          names={['password']}
          error={errs.of('password')}
          hint="At least 5 characters"
        >
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
            required
          />
        </Field>
        <Field label="Plan" names={['planid']} error={errs.of('planid')}>
          <select value={planid} onChange={(e) => setPlanid(e.target.value)}>
            <option value="">The free plan (default)</option>
            {props.plans.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
                {p.free ? ' (free)' : ''}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Membership expires (optional)"
          names={['expiration']}
          error={errs.of('expiration')}
          hint="Your local time. Empty: a paid plan does not expire; a free plan never does."
        >
          <input
            type="datetime-local"
            step={1}
            value={expiration}
            onChange={(e) => setExpiration(e.target.value)}
          />
        </Field>
      </div>
      <FormError error={errs.rest(ADD_FIELDS)} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create user
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
