import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks and imports.
 * - `webhooks`: a user's receivers (URL, subscribed events, the signing secret encrypted with
 *   APP_SECRET), with what the worker learned about them (failing since, disabled).
 * - `webhook_deliveries`: one row per event per webhook. It is the outbox: written in the
 *   transaction that changes the link (or folds the visits), so a crash after the commit loses
 *   nothing; the worker's relay hands rows with no `queued_at` to BullMQ. Finished rows are kept
 *   as the delivery history (the newest 100 per webhook).
 * - `link_imports`: an import job's progress and its first 100 row errors.
 */
export class WebhooksImport1732200006000 implements MigrationInterface {
  name = 'WebhooksImport1732200006000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        url varchar(2000) NOT NULL,
        events text[] NOT NULL,
        secret_enc varchar(512) NOT NULL,
        failing_since timestamptz,
        disabled_at timestamptz,
        disabled_reason varchar(300),
        click_slot timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_user_idx ON webhooks (user_id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        webhook_id int NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        uid uuid NOT NULL DEFAULT gen_random_uuid(),
        event varchar(32) NOT NULL,
        data json NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        response_status int,
        error varchar(300),
        not_before timestamptz NOT NULL DEFAULT now(),
        queued_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_outbox_idx ON webhook_deliveries (id) WHERE queued_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE link_imports (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        source varchar(16) NOT NULL,
        format varchar(8) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'queued',
        total int NOT NULL DEFAULT 0,
        created int NOT NULL DEFAULT 0,
        skipped int NOT NULL DEFAULT 0,
        failed int NOT NULL DEFAULT 0,
        errors jsonb NOT NULL DEFAULT '[]',
        message varchar(300),
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX link_imports_user_idx ON link_imports (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE link_imports`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
