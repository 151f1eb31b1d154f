import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Abuse reports (`POST /api/report`, the public page `/report`): one row per report of a short
 * code, worked by admins (`GET /api/admin/reports`, `PUT /api/admin/report/:id/resolve`).
 * The reporter's address is kept only as an HMAC (`reporter_hash`, keyed with APP_SECRET), to
 * tell repeat reporters apart without storing the address. A deleted link takes its reports
 * with it; a deleted admin leaves `resolved_by` null.
 */
export class Reports1732300040000 implements MigrationInterface {
  name = 'Reports1732300040000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE abuse_reports (
        id serial PRIMARY KEY,
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        reason varchar(16) NOT NULL
          CHECK (reason IN ('phishing','malware','spam','illegal','other')),
        details varchar(1000) NOT NULL DEFAULT '',
        email varchar(254),
        reporter_hash varchar(64) NOT NULL,
        status varchar(12) NOT NULL DEFAULT 'open'
          CHECK (status IN ('open','dismissed','disabled')),
        created_at timestamptz NOT NULL DEFAULT now(),
        resolved_at timestamptz,
        resolved_by int REFERENCES users(id) ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX abuse_reports_status_idx ON abuse_reports (status, id DESC)`);
    await q.query(`CREATE INDEX abuse_reports_link_idx ON abuse_reports (link_id, status)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS abuse_reports`);
  }
}
