import { TestApp, TestUser } from './app';
import { uniq } from './resources';

/**
 * Rows of other features (domains, pixels, campaigns, channels, splash pages, overlays) inserted
 * directly, so the link suites do not depend on those APIs.
 */
export { uniq } from './resources';

export async function insertDomain(
  t: TestApp,
  userId: number,
  opts: {
    host?: string;
    scheme?: string;
    root?: string;
    notFound?: string;
    verified?: boolean;
  } = {},
): Promise<{ id: number; host: string; url: string }> {
  const host = opts.host ?? `${uniq('b')}.brand.test`;
  const url = `${opts.scheme ?? 'https'}://${host}`;
  const [row] = await t.db.query(
    `INSERT INTO domains (user_id, domain, host, redirect_root, redirect_404, verified_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END) RETURNING id`,
    [userId, url, host, opts.root ?? '', opts.notFound ?? '', opts.verified ?? true],
  );
  return { id: row.id, host, url };
}

export async function insertPixel(
  t: TestApp,
  userId: number,
  type = 'vendor03pixel',
  tag = '1234567890',
): Promise<number> {
  const [row] = await t.db.query(
    `INSERT INTO pixels (user_id, type, name, tag) VALUES ($1, $2, 'px', $3) RETURNING id`,
    [userId, type, tag],
  );
  return row.id;
}

export async function insertCampaign(
  t: TestApp,
  userId: number,
  opts: { name?: string; slug?: string | null; public?: boolean } = {},
): Promise<number> {
  const [row] = await t.db.query(
    `INSERT INTO campaigns (user_id, name, slug, public) VALUES ($1, $2, $3, $4) RETURNING id`,
    [userId, opts.name ?? 'Campaign', opts.slug ?? null, opts.public ?? false],
  );
  return row.id;
}

export async function insertChannel(t: TestApp, userId: number): Promise<number> {
  const [row] = await t.db.query(
    `INSERT INTO channels (user_id, name) VALUES ($1, 'Channel') RETURNING id`,
    [userId],
  );
  return row.id;
}

export async function insertSplash(
  t: TestApp,
  userId: number,
  opts: { title?: string; message?: string; countdown?: number; imageUrl?: string } = {},
): Promise<number> {
  const [row] = await t.db.query(
    `INSERT INTO splash_pages (user_id, name, title, message, countdown, image_url) VALUES ($1, 'splash', $2, $3, $4, $5) RETURNING id`,
    [
      userId,
      opts.title ?? 'Welcome',
      opts.message ?? 'Hello',
      opts.countdown ?? 5,
      opts.imageUrl ?? '',
    ],
  );
  return row.id;
}

export async function insertOverlay(
  t: TestApp,
  userId: number,
  opts: { message?: string; buttonText?: string; buttonLink?: string; bgColor?: string } = {},
): Promise<number> {
  const [row] = await t.db.query(
    `INSERT INTO overlays (user_id, type, name, message, button_text, button_link, bg_color)
     VALUES ($1, 'message', 'ov', $2, $3, $4, $5) RETURNING id`,
    [
      userId,
      opts.message ?? 'Sign up',
      opts.buttonText ?? 'Go',
      opts.buttonLink ?? 'https://cta.example/',
      opts.bgColor ?? '#ffeeaa',
    ],
  );
  return row.id;
}

/** Creates a link through the API and returns its id and short URL. */
export async function addLink(
  t: TestApp,
  user: TestUser,
  body: Record<string, unknown>,
): Promise<{ id: number; shorturl: string; alias: string }> {
  const res = await t.http().post('/api/url/add').set(user.auth).send(body);
  if (res.status !== 200) throw new Error(`url/add ${res.status}: ${JSON.stringify(res.body)}`);
  const alias = (res.body.shorturl as string).split('/').pop() as string;
  return { id: res.body.id, shorturl: res.body.shorturl, alias };
}

export async function linkCount(t: TestApp, userId: number): Promise<number> {
  const [row] = await t.db.query(`SELECT count(*)::int AS n FROM links WHERE user_id = $1`, [
    userId,
  ]);
  return row.n;
}

/** Every row a link write may touch, for "a rejected request changes nothing". */
export async function snapshot(t: TestApp, userId: number): Promise<unknown> {
  const [row] = await t.db.query(
    `SELECT
       (SELECT coalesce(json_agg(l ORDER BY l.id), '[]') FROM links l WHERE l.user_id = $1) AS links,
       (SELECT coalesce(json_agg(lp ORDER BY lp.link_id, lp.pixel_id), '[]') FROM link_pixels lp JOIN links l ON l.id = lp.link_id WHERE l.user_id = $1) AS pixels,
       (SELECT coalesce(json_agg(ci ORDER BY ci.id), '[]') FROM channel_items ci WHERE ci.user_id = $1) AS items`,
    [userId],
  );
  return row;
}

/**
 * The link options (docs/api-conventions.md#link-options) of a link created without any, in no
 * channel.
 */
export const NO_OPTIONS = {
  channels: [],
  status: 'public',
  geotarget: null,
  devicetarget: null,
  languagetarget: null,
  deeplink: null,
  parameters: null,
  forwardquery: false,
  metatitle: null,
  metadescription: null,
  metaimage: null,
  clicklimit: null,
  expirationredirect: null,
  fallbackurl: null,
  disabled: false,
  flag: null,
};

/** A date-time `YYYY-MM-DD HH:MM:SS` (UTC) `ms` from now. */
export function dateTimeIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString().slice(0, 19).replace('T', ' ');
}
