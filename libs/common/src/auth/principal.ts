import { Plan, User } from '@app/database';

import { Role } from './access';

/** A named key the request came with (null: the personal key or a session). */
export interface NamedKeyRef {
  id: number;
  scopes: string[];
}

/**
 * The authenticated caller, as every controller receives it through `@Auth()`.
 *
 * `user` is the owner of the workspace the request acts in: services take it as the owner of
 * what they read and write, so ownership checks, plan limits and statistics are the owner's
 * inside a workspace, unchanged from a caller's own account. `actor` is who called.
 */
export interface Principal {
  /** The workspace's owner (the workspace's id is `user.id`). */
  user: User;
  /** The plan in force now for the owner: its plan, or the free plan once a paid membership expired. */
  plan: Plan;
  /** The workspace's owner is an admin: unlimited plan; admin routes also need role `owner`. */
  isAdmin: boolean;
  /** Who sent the request: the owner, or a member. */
  actor: User;
  /** The actor's role in the workspace (`owner` in its own). */
  role: Role;
  /** The named key used, or null. */
  key: NamedKeyRef | null;
  /**
   * Signed in with a session cookie (the dashboard) rather than a key: acts as the personal key
   * would, and is not held to the plan's API access (`api.enabled`), which is about keys.
   */
  session?: true;
}

/**
 * Why a request has no principal: no valid key or session (401), a session's write without its
 * CSRF token (403), or no workspace it may act in.
 */
export type AuthFailure =
  'missing' | 'invalid' | 'expired' | 'session' | 'csrf' | 'no-workspace' | 'bad-workspace';

export type AuthResult = { principal: Principal } | { failure: AuthFailure };

export const AUTH_MESSAGES: Record<'missing' | 'invalid' | 'expired' | 'session', string> = {
  missing: 'Missing API key: send the header Authorization: Bearer <API_KEY> (or Token <API_KEY>)',
  invalid: 'Invalid API key',
  expired: 'API key has expired',
  session: 'Session expired or signed out: sign in again',
};

/**
 * The failures that are not 401s: a session's write without its CSRF token (403); the workspace
 * header names no workspace of the caller (404), or no id (400).
 */
export const WORKSPACE_FAILURES: Record<
  'csrf' | 'no-workspace' | 'bad-workspace',
  { status: number; message: string }
> = {
  csrf: {
    status: 403,
    message:
      'Missing or wrong X-CSRF-Token: a signed-in session sends its csrf token with every change',
  },
  'no-workspace': { status: 404, message: 'Workspace not found (X-Workspace)' },
  'bad-workspace': {
    status: 400,
    message: 'X-Workspace must be the id of a workspace (a positive integer)',
  },
};
