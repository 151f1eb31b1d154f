import { registerDecorator, ValidationOptions } from 'class-validator';

import { isHttpUrl } from '@app/common';

const MAX_INT = 2147483647;

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

function rule(name: string, message: string, test: (value: unknown) => boolean) {
  return (options?: ValidationOptions) =>
    (object: object, propertyName: string): void =>
      registerDecorator({
        name,
        target: object.constructor,
        propertyName,
        options: { message, ...options },
        validator: { validate: test },
      });
}

/** An absolute http(s) URL (at most 2048 characters, no credentials or spaces). */
export const IsWebUrl = rule(
  'isWebUrl',
  '$property must be an absolute http(s) URL of at most 2048 characters, without credentials or spaces',
  (v) => typeof v === 'string' && isHttpUrl(v),
);

/** `avatar`: '' (none) or an absolute http(s) URL. */
export const IsImageUrl = rule(
  'isImageUrl',
  '$property must be an empty string or an absolute http(s) URL of at most 2048 characters',
  (v) => typeof v === 'string' && (v === '' || isHttpUrl(v)),
);

/** `domain`: a branded domain id (integer) or its host name / `http(s)://host` (string). */
export const IsDomainRef = rule(
  'isDomainRef',
  'domain must be a branded domain id (integer) or its host name',
  (v) =>
    (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_INT) ||
    (typeof v === 'string' && v.length >= 1 && v.length <= 270),
);
