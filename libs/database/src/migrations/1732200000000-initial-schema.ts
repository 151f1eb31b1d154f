import { MigrationInterface, QueryRunner } from 'typeorm';

const flag = (on: boolean) => ({ enabled: on ? '1' : '0' });
const count = (on: boolean, n: number) => ({ enabled: on ? '1' : '0', count: String(n) });

/** Free plan: API on, small counts. A count of "0" with enabled "1" means unlimited. */
export const FREE_LIMITS = {
  links: 100,
  clicks: 10000,
  retention: 30,
  custom: flag(true),
  multiple: flag(false),
  alias: flag(true),
  device: flag(false),
  geo: flag(false),
  bundle: flag(true),
  parameters: flag(false),
  export: flag(false),
  api: flag(true),
  team: count(false, 0),
  splash: count(true, 1),
  overlay: count(true, 1),
  pixels: count(true, 2),
  domain: count(true, 1),
};

export const PRO_LIMITS = {
  links: 0,
  clicks: 0,
  retention: 0,
  custom: flag(true),
  multiple: flag(true),
  alias: flag(true),
  device: flag(true),
  geo: flag(true),
  bundle: flag(true),
  parameters: flag(true),
  export: flag(true),
  api: flag(true),
  team: count(true, 10),
  splash: count(true, 0),
  overlay: count(true, 0),
  pixels: count(true, 0),
  domain: count(true, 10),
};

export class InitialSchema1732200000000 implements MigrationInterface {
  name = 'InitialSchema1732200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE plans (
        id serial PRIMARY KEY,
        name varchar(100) NOT NULL,
        free boolean NOT NULL DEFAULT false,
        price_monthly numeric(10,2),
        price_yearly numeric(10,2),
        price_lifetime numeric(10,2),
        limits jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        email varchar(254) NOT NULL,
        username varchar(32) NOT NULL,
        password_hash varchar(255) NOT NULL,
        is_admin boolean NOT NULL DEFAULT false,
        plan_id int NOT NULL REFERENCES plans(id) ON DELETE RESTRICT,
        plan_type varchar(16),
        expires timestamptz,
        api_key_hash char(64) NOT NULL UNIQUE,
        api_key_enc text NOT NULL,
        api_key_expires timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_uq ON users (lower(email))`);
    await q.query(`CREATE UNIQUE INDEX users_username_uq ON users (lower(username))`);
    await q.query(`CREATE INDEX users_admin_idx ON users (is_admin)`);
    await q.query(`
      CREATE TABLE login_tokens (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash char(64) NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX login_tokens_user_idx ON login_tokens (user_id)`);
    await q.query(`
      CREATE TABLE domains (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        domain varchar(270) NOT NULL,
        host varchar(255) NOT NULL,
        redirect_root text NOT NULL DEFAULT '',
        redirect_404 text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX domains_host_uq ON domains (host)`);
    await q.query(`CREATE INDEX domains_user_idx ON domains (user_id, id DESC)`);
    await q.query(`
      CREATE TABLE campaigns (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL DEFAULT '',
        slug varchar(50),
        public boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX campaigns_slug_uq ON campaigns (slug) WHERE slug IS NOT NULL`,
    );
    await q.query(`CREATE INDEX campaigns_user_idx ON campaigns (user_id, id DESC)`);
    await q.query(`
      CREATE TABLE channels (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        description varchar(500) NOT NULL DEFAULT '',
        color varchar(7) NOT NULL DEFAULT '#000000',
        starred boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX channels_user_idx ON channels (user_id, id DESC)`);
    await q.query(`
      CREATE TABLE channel_items (
        id serial PRIMARY KEY,
        channel_id int NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        item_type varchar(8) NOT NULL CHECK (item_type IN ('links','bio','qr')),
        item_id int NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (channel_id, item_type, item_id)
      )`);
    await q.query(`CREATE INDEX channel_items_item_idx ON channel_items (item_type, item_id)`);
    await q.query(`
      CREATE TABLE pixels (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type varchar(32) NOT NULL,
        name varchar(100) NOT NULL,
        tag varchar(255) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX pixels_user_idx ON pixels (user_id, id DESC)`);
    await q.query(`
      CREATE TABLE overlays (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type varchar(16) NOT NULL,
        name varchar(100) NOT NULL,
        message varchar(1000) NOT NULL DEFAULT '',
        button_text varchar(100) NOT NULL DEFAULT '',
        button_link text NOT NULL DEFAULT '',
        bg_color varchar(7) NOT NULL DEFAULT '#ffffff',
        text_color varchar(7) NOT NULL DEFAULT '#000000',
        button_color varchar(7) NOT NULL DEFAULT '#0055ff',
        position varchar(2) NOT NULL DEFAULT 'bl',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX overlays_user_idx ON overlays (user_id, id DESC)`);
    await q.query(`
      CREATE TABLE splash_pages (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        title varchar(200) NOT NULL DEFAULT '',
        message varchar(2000) NOT NULL DEFAULT '',
        image_url text NOT NULL DEFAULT '',
        countdown int NOT NULL DEFAULT 5,
        button_text varchar(100) NOT NULL DEFAULT 'Continue',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX splash_pages_user_idx ON splash_pages (user_id, id DESC)`);
    await q.query(`
      CREATE TABLE links (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind varchar(8) NOT NULL DEFAULT 'link' CHECK (kind IN ('link','qr','bio')),
        alias varchar(64) NOT NULL,
        domain_id int REFERENCES domains(id) ON DELETE SET NULL,
        url text NOT NULL,
        title varchar(255) NOT NULL DEFAULT '',
        description varchar(500) NOT NULL DEFAULT '',
        type varchar(16) NOT NULL DEFAULT 'direct',
        overlay_id int REFERENCES overlays(id) ON DELETE SET NULL,
        splash_id int REFERENCES splash_pages(id) ON DELETE SET NULL,
        password_hash varchar(255),
        expires_at timestamptz,
        campaign_id int REFERENCES campaigns(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX links_alias_uq ON links (alias)`);
    await q.query(`CREATE INDEX links_user_idx ON links (user_id, kind, id DESC)`);
    await q.query(
      `CREATE INDEX links_campaign_idx ON links (campaign_id, id) WHERE campaign_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE link_pixels (
        link_id int NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        pixel_id int NOT NULL REFERENCES pixels(id) ON DELETE CASCADE,
        PRIMARY KEY (link_id, pixel_id)
      )`);
    await q.query(`
      CREATE TABLE qr_codes (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        link_id int NOT NULL UNIQUE REFERENCES links(id) ON DELETE CASCADE,
        name varchar(255) NOT NULL DEFAULT '',
        type varchar(8) NOT NULL,
        data jsonb NOT NULL,
        background varchar(32) NOT NULL DEFAULT 'rgb(255,255,255)',
        foreground varchar(32) NOT NULL DEFAULT 'rgb(0,0,0)',
        logo text,
        status varchar(8) NOT NULL DEFAULT 'pending',
        error text,
        render_version int NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX qr_codes_user_idx ON qr_codes (user_id, id DESC)`);

    await q.query(
      `INSERT INTO plans (name, free, price_monthly, price_yearly, price_lifetime, limits) VALUES
        ('Free', true, NULL, NULL, NULL, $1), ('Pro', false, 9.99, 99, 299, $2)`,
      [JSON.stringify(FREE_LIMITS), JSON.stringify(PRO_LIMITS)],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'qr_codes',
      'link_pixels',
      'links',
      'splash_pages',
      'overlays',
      'pixels',
      'channel_items',
      'channels',
      'campaigns',
      'domains',
      'login_tokens',
      'users',
      'plans',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
