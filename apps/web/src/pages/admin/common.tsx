import { ReactNode, useEffect, useRef } from 'react';

import { Schemas } from '../../api';

/** A plan of `GET /api/plans`. */
export type Plan = Schemas['PlanResponse'];
/** A user of `GET /api/users` and `GET /api/user/:id`. */
export type AdminUser = Schemas['UserResponse'];

/** The plan's name by id, or `#id` when the list does not have it. */
export function planName(plans: Plan[], id: number): string {
  return plans.find((p) => p.id === id)?.name ?? `#${id}`;
}

/** A limit where 0 means none: "Unlimited", else the number. */
export function limitText(value: number | string, zero = 'Unlimited'): string {
  return Number(value) === 0 ? zero : String(value);
}

/**
 * A message after an action ("User jane was created."), announced politely and focused (so that
 * keyboard users land on it after a form closes or a row goes; `focus={false}` when the focus is
 * already where it should stay). `onDismiss` adds a "Dismiss" button.
 */
export function Notice(props: { children: ReactNode; onDismiss?: () => void; focus?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const focus = props.focus ?? true;
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <div className="card admin-notice" role="status" tabIndex={-1} ref={ref}>
      <p>{props.children}</p>
      {props.onDismiss && (
        <button type="button" onClick={props.onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}

/** What a non-admin sees in the admin area (the api answers 403 to every admin route). */
export function AdminsOnly() {
  return (
    <>
      <h1>Admin</h1>
      <div className="card" role="alert">
        <p>
          <strong>Admins only.</strong> This area manages users, plans, the blocklist and disabled
          links; your account is not an administrator. Ask an administrator if you need something
          changed.
        </p>
      </div>
    </>
  );
}

/** A message handed from one admin page to the next one shown (after a deletion). */
let flash: string | null = null;

export function setFlash(message: string): void {
  flash = message;
}

export function takeFlash(): string | null {
  const message = flash;
  flash = null;
  return message;
}
