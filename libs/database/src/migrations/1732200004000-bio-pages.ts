import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bio pages (link-in-bio): the page's own fields beside its `links` row of kind `bio` (alias,
 * branded domain, title and description live there, so one redirector and one statistics
 * pipeline serve it). A splash page gains the `link` it shows beside its image.
 */
export class BioPages1732200004000 implements MigrationInterface {
  name = 'BioPages1732200004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bio_pages (
        link_id int PRIMARY KEY REFERENCES links(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        avatar text NOT NULL DEFAULT '',
        theme varchar(8) NOT NULL DEFAULT 'light' CHECK (theme IN ('light', 'dark')),
        links jsonb NOT NULL DEFAULT '[]',
        socials jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX bio_pages_user_idx ON bio_pages (user_id, link_id DESC)`);
    // which bio pages show a given short link (jsonb containment: links @> '[{"link": 5}]')
    await q.query(`CREATE INDEX bio_pages_links_idx ON bio_pages USING gin (links jsonb_path_ops)`);
    await q.query(`ALTER TABLE splash_pages ADD COLUMN link text NOT NULL DEFAULT ''`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE splash_pages DROP COLUMN link`);
    await q.query(`DROP TABLE bio_pages`);
  }
}
