import { randomBytes } from 'node:crypto';

import { PrincipalCache, sha256 } from '@app/common';

import { TestApp } from './app';

export type MemberRole = 'admin' | 'editor' | 'viewer';

/**
 * Makes `userId` a member of `workspaceId` (its owner's user id) with `role`, by a row (the team
 * routes are tested by their own suite), and drops what every replica cached about it.
 */
export async function addMember(
  t: TestApp,
  workspaceId: number,
  userId: number,
  role: MemberRole,
): Promise<void> {
  await t.db.query(
    `INSERT INTO workspace_members (workspace_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [workspaceId, userId, role],
  );
  await t.app.get(PrincipalCache).forgetMember(workspaceId, userId);
}

/** Ends a membership (a row deleted) and drops what every replica cached about it. */
export async function removeMember(t: TestApp, workspaceId: number, userId: number): Promise<void> {
  await t.db.query(`DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2`, [
    workspaceId,
    userId,
  ]);
  await t.app.get(PrincipalCache).forgetMember(workspaceId, userId);
}

export interface NamedTestKey {
  id: number;
  key: string;
  auth: { Authorization: string };
}

/**
 * A named key of `user` acting in `workspace`, with `scopes`, by a row holding its digest as
 * the named-key routes store it.
 */
export async function addKey(
  t: TestApp,
  opts: { workspace: number; user: number; scopes: string[]; expires?: Date | null },
): Promise<NamedTestKey> {
  const key = `nk${randomBytes(24).toString('hex')}`;
  const [{ id }] = await t.db.query(
    `INSERT INTO api_keys (workspace_id, user_id, name, prefix, key_hash, scopes, expires)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [
      opts.workspace,
      opts.user,
      `test ${opts.scopes.join(' ')}`.slice(0, 64),
      key.slice(0, 8),
      sha256(key),
      opts.scopes,
      opts.expires ?? null,
    ],
  );
  return { id, key, auth: { Authorization: `Bearer ${key}` } };
}

/** Revokes named keys (rows deleted) and drops them from every replica's cache. */
export async function revokeKeys(t: TestApp, ids: number[]): Promise<void> {
  await t.db.query(`DELETE FROM api_keys WHERE id = ANY($1)`, [ids]);
  await t.app.get(PrincipalCache).forgetKeys(ids);
}
