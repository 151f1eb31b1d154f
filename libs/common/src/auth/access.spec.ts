import { leastRole, roleAllows, SCOPES, scopesAllow, scopesWithin } from './access';

describe('access', () => {
  it('the least role of a need', () => {
    expect(leastRole('links:read')).toBe('viewer');
    expect(leastRole('links:write')).toBe('editor');
    expect(leastRole('pages:write')).toBe('editor');
    expect(leastRole('import:write')).toBe('editor');
    expect(leastRole('domains:read')).toBe('viewer');
    expect(leastRole('domains:write')).toBe('admin');
    expect(leastRole('webhooks:write')).toBe('admin');
    expect(leastRole('team:read')).toBe('viewer');
    expect(leastRole('team:write')).toBe('admin');
    expect(leastRole('keys:read')).toBe('admin');
    expect(leastRole('audit:read')).toBe('admin');
    expect(leastRole('owner')).toBe('owner');
  });

  it('a role reaches its own needs and those of every role below it', () => {
    expect(roleAllows('viewer', 'links:read')).toBe(true);
    expect(roleAllows('viewer', 'links:write')).toBe(false);
    expect(roleAllows('editor', 'links:write')).toBe(true);
    expect(roleAllows('editor', 'domains:write')).toBe(false);
    expect(roleAllows('admin', 'domains:write')).toBe(true);
    expect(roleAllows('admin', 'owner')).toBe(false);
    expect(roleAllows('owner', 'owner')).toBe(true);
    expect(roleAllows('owner', 'audit:read')).toBe(true);
  });

  it('write includes read; owner needs *; nothing else is implied', () => {
    expect(scopesAllow(['links:write'], 'links:read')).toBe(true);
    expect(scopesAllow(['links:read'], 'links:write')).toBe(false);
    expect(scopesAllow(['links:read'], 'qr:read')).toBe(false);
    expect(scopesAllow(['stats:read'], 'stats:read')).toBe(true);
    expect(scopesAllow(['links:write', 'qr:write'], 'owner')).toBe(false);
    expect(scopesAllow(['*'], 'owner')).toBe(true);
    expect(scopesAllow(['*'], 'audit:write')).toBe(true);
    expect(scopesAllow([], 'links:read')).toBe(false);
  });

  it('a role grants only scopes within it; * is whatever the creator can do', () => {
    expect(scopesWithin('viewer', ['links:read', 'stats:read'])).toBe(true);
    expect(scopesWithin('viewer', ['links:write'])).toBe(false);
    expect(scopesWithin('viewer', ['keys:read'])).toBe(false);
    expect(scopesWithin('editor', ['links:write', 'import:write'])).toBe(true);
    expect(scopesWithin('editor', ['webhooks:write'])).toBe(false);
    expect(scopesWithin('admin', ['webhooks:write', 'keys:write', 'audit:read'])).toBe(true);
    expect(scopesWithin('viewer', ['*'])).toBe(true);
  });

  it('SCOPES: * and read and write of each of the 14 areas', () => {
    expect(SCOPES).toHaveLength(29);
    expect(SCOPES).toContain('import:write');
    expect(new Set(SCOPES).size).toBe(SCOPES.length);
  });
});
