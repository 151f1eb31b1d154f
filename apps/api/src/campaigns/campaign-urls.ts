/** `Black Friday 2024!` → `black-friday-2024`; a name with no [a-z0-9] at all → `campaign`. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'campaign';
}

/** `<base>/r/<slug>`, or `false` for a campaign without a slug (no rotator). */
export function rotatorUrl(base: string, slug: string | null): string | false {
  return slug ? `${base}/r/${slug}` : false;
}

/** `<base>/u/<slug or slugified name>-<id>`: the campaign's list page. */
export function listUrl(
  base: string,
  campaign: { id: number; name: string; slug: string | null },
): string {
  return `${base}/u/${campaign.slug || slugify(campaign.name)}-${campaign.id}`;
}
