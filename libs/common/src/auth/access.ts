import { MemberRole } from '@app/database';

/**
 * Who may do what in a workspace (CONTRACT "Teams, workspaces and API keys"): the one table the
 * guard reads. A route declares what it needs with `@Needs(...)` (decorators.ts): an area and
 * `read` or `write`, or `owner` for what only the owner does (account, plan, key rotation).
 */

/** The areas a route belongs to; named keys are scoped by them (`links:read`, `links:write`). */
export const AREAS = [
  'links',
  'qr',
  'bio',
  'pages',
  'campaigns',
  'channels',
  'pixels',
  'domains',
  'webhooks',
  'stats',
  'import',
  'team',
  'keys',
  'audit',
] as const;
export type Area = (typeof AREAS)[number];
export type Access = 'read' | 'write';

/** A scope of a named key: an area and `read` or `write` (write includes read), or everything. */
export type Scope = `${Area}:${Access}` | '*';

/** What a route needs: an area's read or write, or the workspace's owner. */
export type Need = `${Area}:${Access}` | 'owner';

/** The caller's role in the workspace it acts in; `owner` for its own workspace. */
export type Role = 'owner' | MemberRole;

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

/**
 * The least role for reading and for writing each area. Viewers read every area but the key
 * list and the audit log; editors change links and what hangs off them; admins also domains,
 * webhooks, members, keys and the audit log.
 */
const LEAST: Record<Area, Record<Access, Role>> = {
  links: { read: 'viewer', write: 'editor' },
  qr: { read: 'viewer', write: 'editor' },
  bio: { read: 'viewer', write: 'editor' },
  pages: { read: 'viewer', write: 'editor' },
  campaigns: { read: 'viewer', write: 'editor' },
  channels: { read: 'viewer', write: 'editor' },
  pixels: { read: 'viewer', write: 'editor' },
  stats: { read: 'viewer', write: 'editor' },
  import: { read: 'viewer', write: 'editor' },
  domains: { read: 'viewer', write: 'admin' },
  webhooks: { read: 'viewer', write: 'admin' },
  team: { read: 'viewer', write: 'admin' },
  keys: { read: 'admin', write: 'admin' },
  audit: { read: 'admin', write: 'admin' },
};

/** The least role a need takes. */
export function leastRole(need: Need): Role {
  if (need === 'owner') return 'owner';
  const [area, access] = need.split(':') as [Area, Access];
  return LEAST[area][access];
}

export function roleAllows(role: Role, need: Need): boolean {
  return RANK[role] >= RANK[leastRole(need)];
}

/** Whether a named key's scopes cover a need: `<area>:write` covers `<area>:read`; `owner` needs `*`. */
export function scopesAllow(scopes: readonly string[], need: Need): boolean {
  if (scopes.includes('*')) return true;
  if (need === 'owner') return false;
  if (scopes.includes(need)) return true;
  const [area, access] = need.split(':');
  return access === 'read' && scopes.includes(`${area}:write`);
}

/** Every scope a key may hold, for validation and the OpenAPI security scheme. */
export const SCOPES: readonly Scope[] = [
  '*',
  ...AREAS.flatMap((a) => [`${a}:read`, `${a}:write`] as Scope[]),
];

/**
 * Whether a role can grant these scopes: a key never exceeds its creator's role. `*` is
 * "whatever the creator can do" (checked against the creator's role on every request).
 */
export function scopesWithin(role: Role, scopes: readonly string[]): boolean {
  return scopes.every((s) => s === '*' || roleAllows(role, s as Need));
}
