import { FormEvent, useEffect, useRef, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
import {
  ConfirmButton,
  Field,
  FormError,
  formatDate,
  LoadState,
  Pager,
  toApiError,
  useLoad,
} from '../../ui';

type Role = Schemas['AddMemberDto']['role'];
type Member = Schemas['MemberView'];

/** The roles a member can have, least first, with what each may do (the API's description). */
export const ROLES: Array<{ role: Role; what: string }> = [
  { role: 'viewer', what: 'reads everything but keys and the audit log' },
  {
    role: 'editor',
    what: 'also changes links, QR codes, bio pages, campaigns, channels, pixels, overlays, splash pages and imports',
  },
  { role: 'admin', what: 'also domains, webhooks, members, keys and the audit log' },
];

const PER_PAGE = 20;

/** The form that adds a member: an existing user's e-mail and a role. */
function AddMember(props: { onAdded: (member: Member) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const added = await call(
        client.POST('/api/team/add', {
          body: { email: email.trim(), role },
        }),
      );
      setEmail('');
      props.onAdded(added);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
      emailRef.current?.focus();
    }
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="add-member-title" noValidate>
      <h3 id="add-member-title">Add a member</h3>
      <div className="grid-2">
        <Field
          label="Member's email"
          names={['email']}
          error={error}
          hint="Someone who already has an account."
        >
          <input
            ref={emailRef}
            type="email"
            autoComplete="off"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field label="Role" names={['role']} error={error}>
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r.role} value={r.role}>
                {r.role}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <FormError error={error} names={['email', 'role']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Add member
        </button>
      </div>
    </form>
  );
}

/** One member: the role (changed with "Change role"), and "Remove" with a confirmation. */
function MemberRow(props: { member: Member; onChanged: (message: string) => Promise<void> }) {
  const m = props.member;
  const [role, setRole] = useState<Role>(m.role);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const params = (id: number) => ({ path: { id } });

  const change = async () => {
    setBusy(true);
    setError(null);
    try {
      const updated = await call(
        client.PUT('/api/team/{id}/update', { params: params(m.id), body: { role } }),
      );
      await props.onChanged(`${updated.email} is now ${updated.role}.`);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setError(null);
    try {
      await call(client.DELETE('/api/team/{id}/delete', { params: params(m.id) }));
      await props.onChanged(`${m.email} was removed from the team.`);
    } catch (err) {
      setError(toApiError(err));
    }
  };

  return (
    <tr>
      <td>
        <strong>{m.username}</strong>
        <br />
        <span className="meta">{m.email}</span>
      </td>
      <td>
        <div className="member-role">
          <label className="visually-hidden" htmlFor={`member-role-${m.id}`}>
            Role of {m.email}
          </label>
          <select
            id={`member-role-${m.id}`}
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
          >
            {ROLES.map((r) => (
              <option key={r.role} value={r.role}>
                {r.role}
              </option>
            ))}
          </select>
          <button
            type="button"
            onClick={change}
            disabled={busy || role === m.role}
            aria-label={`Change role of ${m.email}`}
          >
            Change role
          </button>
        </div>
        {error && (
          <p className="error" role="alert">
            {error.message}
          </p>
        )}
      </td>
      <td>{formatDate(m.date)}</td>
      <td>
        <ConfirmButton confirmLabel={`Confirm removing ${m.email}`} action={remove}>
          <span aria-hidden="true">Remove</span>
          <span className="visually-hidden">Remove {m.email}</span>
        </ConfirmButton>
      </td>
    </tr>
  );
}

/**
 * The workspace's members (`GET /api/team`, a page at a time), adding one by e-mail with a role,
 * changing a role, removing one. The owner is not a member: it is not listed.
 */
export function Members(props: { canManage: boolean }) {
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<string | null>(null);
  const noticeRef = useRef<HTMLParagraphElement>(null);
  const loaded = useLoad(
    () =>
      call(
        client.GET('/api/team', {
          params: { query: { page, limit: PER_PAGE } },
        }),
      ).then((r) => r.data),
    [page],
  );
  const data = loaded.data;
  // the last item of the last page went (a removal): show the page before
  useEffect(() => {
    if (data && data.members.length === 0 && page > 1) setPage(Math.min(page - 1, data.maxpage));
  }, [data, page]);

  /** After a change: its message, the list again, and the focus on the message (its row may be gone). */
  const changed = async (message: string, focus = true) => {
    setNotice(message);
    await loaded.reload();
    if (focus) noticeRef.current?.focus();
  };

  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <p className="hint">
        {ROLES.map((r) => (
          <span key={r.role} className="role-hint">
            <strong>{r.role}</strong>: {r.what}.{' '}
          </span>
        ))}
      </p>
      {props.canManage && (
        <AddMember onAdded={(m) => void changed(`${m.email} was added as ${m.role}.`, false)} />
      )}
      <p ref={noticeRef} role="status" className="notice" tabIndex={-1}>
        {notice}
      </p>
      <LoadState loaded={loaded} what="Members" />
      {data && data.members.length === 0 && <p>No members yet: only the owner works here.</p>}
      {data && data.members.length > 0 && (
        <>
          <p className="meta">
            {data.result} {data.result === 1 ? 'member' : 'members'}
          </p>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Members of the workspace</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.members.map((m) => (
                  <MemberRow key={`${m.id}-${m.role}`} member={m} onChanged={changed} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={data.currentpage} maxpage={data.maxpage} onPage={setPage} />
        </>
      )}
    </section>
  );
}
