import { Injectable } from '@nestjs/common';

import { AppConfig } from '@app/config';

import { hostOfUrl } from '../util/host';

/** `Black Friday 2024!` → `black-friday-2024`; a name with no [a-z0-9] at all → `campaign`. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'campaign';
}

/** `https://brand.example/` → `https://brand.example` */
const trimSlashes = (base: string) => base.replace(/\/+$/, '');

/**
 * Every public URL the service hands out, built in one place from PUBLIC_URL (or a link's
 * branded domain): short links, QR links and images, campaign rotators and list pages, login
 * links.
 */
@Injectable()
export class PublicUrls {
  /** PUBLIC_URL without a trailing slash. */
  readonly base: string;
  /**
   * PUBLIC_URL's host name, parsed once (lower case, no port, no trailing dot, IPv6 without
   * brackets): the main host, as the redirector compares a request's Host with it.
   */
  readonly host: string;

  constructor(config: AppConfig) {
    this.base = config.publicUrl;
    this.host = hostOfUrl(config.publicUrl);
  }

  /** `<branded domain or PUBLIC_URL>/<alias>`: a short link (or bio page). */
  short(alias: string, domain?: string | null): string {
    return `${domain ? trimSlashes(domain) : this.base}/${alias}`;
  }

  /** `<PUBLIC_URL>/q/<code>`: a QR code's short link (QR links live on PUBLIC_URL only). */
  qr(code: string): string {
    return `${this.base}/q/${code}`;
  }

  /** The rendered image of a QR code. */
  qrImage(code: string, format: 'png' | 'svg' = 'png'): string {
    return `${this.qr(code)}.${format}`;
  }

  /** `<PUBLIC_URL>/r/<slug>`, or `false` for a campaign without a slug (no rotator). */
  rotator(slug: string | null): string | false {
    return slug ? `${this.base}/r/${slug}` : false;
  }

  /** `<PUBLIC_URL>/u/<slug or slugified name>-<id>`: a campaign's list page. */
  campaignList(campaign: { id: number; name: string; slug: string | null }): string {
    return `${this.base}/u/${campaign.slug || slugify(campaign.name)}-${campaign.id}`;
  }

  /** `<PUBLIC_URL>/auth/login/<token>`: a one-time login link. */
  login(token: string): string {
    return `${this.base}/auth/login/${token}`;
  }
}
