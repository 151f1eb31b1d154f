import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign rotator (`GET /r/<slug>`) that costs the same for a campaign of 100 000 links as
 * for one of three.
 *
 * `campaign_rotations.version` changes whenever the rotation's members may have: a link of kind
 * `link` joins or leaves the campaign (insert, delete, `campaign_id` changed, the campaign's
 * deletion setting it to null) or changes what the rotator answers of it (`alias`, `domain_id`
 * (a branded domain's deletion sets it to null), `expires_at`, `kind`). The api keeps each
 * version's members in Redis, ordered by link id (CampaignRotation), and a hit reads only the
 * campaign row and its version from Postgres. Row triggers with a WHEN clause cost nothing for a
 * link outside campaigns; within a transaction a campaign's version moves once (the row already
 * written by this transaction is left alone), so a statement touching 20 000 links of one campaign
 * writes the row once. The version only needs to differ after every such commit, so any writer
 * (api, worker, SQL by hand) keeps the rotator exact. A campaign being deleted in the same
 * transaction is skipped (its row goes with it).
 */
export class CampaignRotation1732400070000 implements MigrationInterface {
  name = 'CampaignRotation1732400070000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaign_rotations (
        campaign_id int PRIMARY KEY REFERENCES campaigns(id) ON DELETE CASCADE,
        version bigint NOT NULL
      )`);
    await q.query(`
      CREATE FUNCTION campaign_rotation_bump(p_campaign int) RETURNS void LANGUAGE sql AS $$
        INSERT INTO campaign_rotations AS r (campaign_id, version)
        SELECT p_campaign, 1 WHERE EXISTS (SELECT 1 FROM campaigns c WHERE c.id = p_campaign)
        ON CONFLICT (campaign_id) DO UPDATE SET version = r.version + 1
         WHERE r.xmin <> pg_current_xact_id()::xid
      $$`);
    await q.query(`
      CREATE FUNCTION links_campaign_rotation() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.campaign_id IS NOT NULL THEN
          PERFORM campaign_rotation_bump(OLD.campaign_id);
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.campaign_id IS NOT NULL
           AND (TG_OP = 'INSERT' OR NEW.campaign_id IS DISTINCT FROM OLD.campaign_id) THEN
          PERFORM campaign_rotation_bump(NEW.campaign_id);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER links_rotation_insert AFTER INSERT ON links
        FOR EACH ROW WHEN (NEW.campaign_id IS NOT NULL) EXECUTE FUNCTION links_campaign_rotation()`);
    await q.query(`
      CREATE TRIGGER links_rotation_delete AFTER DELETE ON links
        FOR EACH ROW WHEN (OLD.campaign_id IS NOT NULL) EXECUTE FUNCTION links_campaign_rotation()`);
    await q.query(`
      CREATE TRIGGER links_rotation_update AFTER UPDATE ON links
        FOR EACH ROW WHEN (
          (OLD.campaign_id IS NOT NULL OR NEW.campaign_id IS NOT NULL) AND (
            OLD.campaign_id IS DISTINCT FROM NEW.campaign_id OR OLD.alias <> NEW.alias
            OR OLD.domain_id IS DISTINCT FROM NEW.domain_id
            OR OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.kind <> NEW.kind))
        EXECUTE FUNCTION links_campaign_rotation()`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['insert', 'delete', 'update'])
      await q.query(`DROP TRIGGER IF EXISTS links_rotation_${t} ON links`);
    await q.query(`DROP FUNCTION IF EXISTS links_campaign_rotation()`);
    await q.query(`DROP FUNCTION IF EXISTS campaign_rotation_bump(int)`);
    await q.query(`DROP TABLE IF EXISTS campaign_rotations`);
  }
}
