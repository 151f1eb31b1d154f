import { isHttpUrl, validationRule as rule } from '@app/common';

/** The social networks a bio page can link to, with the label its page shows. */
export const SOCIAL_NETWORKS = {
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
} as const;
export type SocialNetwork = keyof typeof SOCIAL_NETWORKS;
export const SOCIAL_NETWORK_NAMES = Object.keys(SOCIAL_NETWORKS) as SocialNetwork[];

/** `avatar`: '' (none) or an absolute http(s) URL. */
export const IsImageUrl = rule(
  'isImageUrl',
  '$property must be an empty string or an absolute http(s) URL of at most 2048 characters',
  (v) => typeof v === 'string' && (v === '' || isHttpUrl(v)),
);
