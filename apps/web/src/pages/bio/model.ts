/**
 * The bio page form's state and its mapping to the API's bodies (`POST /api/bio/add`,
 * `PUT /api/bio/:id/update`) and from `details` of `GET /api/bio/:id`. The types come from the
 * generated schema; only the flat form state is this file's own.
 */
import type { Schemas } from '../../api';

export type BioView = Schemas['BioView'];
export type AddBioBody = Schemas['AddBioDto'];
export type UpdateBioBody = Schemas['UpdateBioDto'];
export type Theme = NonNullable<AddBioBody['theme']>;
export type Network = keyof Schemas['BioSocialsDto'] & string;
export type Domain = Schemas['DomainView'];

/** The networks in the order the public page shows them, with the label it shows. */
const NETWORK_LABELS: Record<Network, string> = {
  facebook: 'Facebook',
  instagram: 'Instagram',
  x: 'X',
  linkedin: 'LinkedIn',
  youtube: 'YouTube',
  tiktok: 'TikTok',
  threads: 'Threads',
  bluesky: 'Bluesky',
  mastodon: 'Mastodon',
  pinterest: 'Pinterest',
  snapchat: 'Snapchat',
  twitch: 'Twitch',
  discord: 'Discord',
  telegram: 'Telegram',
  whatsapp: 'WhatsApp',
  github: 'GitHub',
  spotify: 'Spotify',
  soundcloud: 'SoundCloud',
  website: 'Website',
};
export const NETWORKS = Object.entries(NETWORK_LABELS) as Array<[Network, string]>;

export interface BioLinkRow {
  /** a key for React: rows move and go */
  key: number;
  title: string;
  url: string;
}

export interface BioForm {
  name: string;
  alias: string;
  /** '' = PUBLIC_URL, else a branded domain's id */
  domain: string;
  title: string;
  description: string;
  avatar: string;
  theme: Theme;
  links: BioLinkRow[];
  socials: Partial<Record<Network, string>>;
}

let nextKey = 1;
export const newRow = (title = '', url = ''): BioLinkRow => ({ key: nextKey++, title, url });

export const emptyBio = (): BioForm => ({
  name: '',
  alias: '',
  domain: '',
  title: '',
  description: '',
  avatar: '',
  theme: 'light',
  links: [newRow()],
  socials: {},
});

const links = (f: BioForm) =>
  f.links
    .filter((l) => l.title.trim() !== '' || l.url.trim() !== '')
    .map((l) => ({ title: l.title.trim(), url: l.url.trim() }));

const socials = (f: BioForm) =>
  Object.fromEntries(
    Object.entries(f.socials)
      .map(([k, v]) => [k, (v ?? '').trim()])
      .filter(([, v]) => v !== ''),
  ) as Schemas['BioSocialsDto'];

/**
 * The API's index of each row sent (`links[1].url` names the second row *sent*): empty rows are
 * left out, so the rows after one shift. Maps a sent index back to the row's key.
 */
export function sentKeys(f: BioForm): number[] {
  return f.links.filter((l) => l.title.trim() !== '' || l.url.trim() !== '').map((l) => l.key);
}

export function addBody(f: BioForm): AddBioBody {
  return {
    name: f.name.trim(),
    ...(f.alias.trim() ? { alias: f.alias.trim() } : {}),
    ...(f.domain ? { domain: Number(f.domain) } : {}),
    title: f.title,
    description: f.description,
    avatar: f.avatar.trim(),
    theme: f.theme,
    links: links(f),
    socials: socials(f),
  };
}

/** Every field but the address; the alias and the domain only when they changed. */
export function updateBody(f: BioForm, was: BioView, wasDomain: string): UpdateBioBody {
  return {
    name: f.name.trim(),
    ...(f.alias.trim() !== was.alias ? { alias: f.alias.trim() } : {}),
    ...(f.domain !== wasDomain ? { domain: f.domain ? Number(f.domain) : null } : {}),
    title: f.title,
    description: f.description,
    avatar: f.avatar.trim(),
    theme: f.theme,
    links: links(f),
    socials: socials(f),
  };
}

/** The id (as the form's select holds it) of the branded domain a page's `domain` URL names. */
export function domainId(view: BioView, domains: Domain[]): string {
  if (!view.domain) return '';
  const found = domains.find((d) => d.domain.toLowerCase() === view.domain!.toLowerCase());
  return found ? String(found.id) : '';
}

export function formFromView(v: BioView, domains: Domain[]): BioForm {
  return {
    name: v.name,
    alias: v.alias,
    domain: domainId(v, domains),
    title: v.title,
    description: v.description,
    avatar: v.avatar,
    theme: v.theme,
    links: v.links.length ? v.links.map((l) => newRow(l.title, l.url)) : [newRow()],
    socials: { ...(v.socials as Partial<Record<Network, string>>) },
  };
}
