import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The link options plans sell (targeting, deep links, parameters, social previews, click limits,
 * private links, expiration redirects). All nullable or defaulted: existing links are unchanged.
 */
export class LinkOptions1732200002000 implements MigrationInterface {
  name = 'LinkOptions1732200002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE links
        ADD COLUMN status varchar(8) NOT NULL DEFAULT 'public' CHECK (status IN ('public', 'private')),
        ADD COLUMN geo_targets jsonb,
        ADD COLUMN device_targets jsonb,
        ADD COLUMN language_targets jsonb,
        ADD COLUMN deep_link jsonb,
        ADD COLUMN parameters jsonb,
        ADD COLUMN forward_query boolean NOT NULL DEFAULT false,
        ADD COLUMN meta_title varchar(200),
        ADD COLUMN meta_description varchar(500),
        ADD COLUMN meta_image text,
        ADD COLUMN click_limit int CHECK (click_limit IS NULL OR click_limit >= 1),
        ADD COLUMN expiration_redirect text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE links
        DROP COLUMN status, DROP COLUMN geo_targets, DROP COLUMN device_targets,
        DROP COLUMN language_targets, DROP COLUMN deep_link, DROP COLUMN parameters,
        DROP COLUMN forward_query, DROP COLUMN meta_title, DROP COLUMN meta_description,
        DROP COLUMN meta_image, DROP COLUMN click_limit, DROP COLUMN expiration_redirect`);
  }
}
