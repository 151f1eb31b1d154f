import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams (CONTRACT "Teams, workspaces and API keys"). A user's workspace is the user: its id is
 * the user's id, so no table holds workspaces.
 *
 * - `workspace_members`: who else acts in a workspace, and as what (`admin`, `editor`,
 *   `viewer`); the owner has no row. Gone with the workspace's owner or with the member.
 * - `api_keys`: named keys, by SHA-256 digest like the personal key (`users.api_key_hash`);
 *   `prefix` is the start of the key shown in lists; a key acts in `workspace_id` for
 *   `user_id` (its creator), never beyond the creator's role there. Gone with either user.
 * - `audit_log`: one row per successful change in a workspace, written in the change's
 *   transaction. The actor's e-mail is kept with the entry (the entry outlives the member);
 *   `changes` holds field names only. Read newest first per workspace.
 */
export class Teams1732300030000 implements MigrationInterface {
  name = 'Teams1732300030000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE workspace_members (
        id serial PRIMARY KEY,
        workspace_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role varchar(8) NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workspace_members_once UNIQUE (workspace_id, user_id),
        CHECK (workspace_id <> user_id)
      )`);
    await q.query(`CREATE INDEX workspace_members_user_idx ON workspace_members (user_id)`);
    await q.query(`
      CREATE TABLE api_keys (
        id serial PRIMARY KEY,
        workspace_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(64) NOT NULL,
        prefix varchar(16) NOT NULL,
        key_hash char(64) NOT NULL UNIQUE,
        scopes text[] NOT NULL,
        expires timestamptz,
        last_used timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, id)`);
    await q.query(`CREATE INDEX api_keys_user_idx ON api_keys (user_id)`);
    await q.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        workspace_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        actor_id int,
        actor_email varchar(254) NOT NULL,
        key_id int,
        action varchar(48) NOT NULL,
        resource_type varchar(24) NOT NULL,
        resource_id varchar(64),
        changes text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX audit_log_workspace_idx ON audit_log (workspace_id, id DESC)`);
    await q.query(`CREATE INDEX audit_log_created_idx ON audit_log (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_log`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE workspace_members`);
  }
}
