import { PixelType } from '@app/database';

import { escaped, SafeHtml } from './html';

/**
 * What a pixel tag may contain (the rule of the pixel routes): checked again here before it is
 * written into a page.
 */
export const PIXEL_TAG_PATTERN = /^[A-Za-z0-9_.:-]{1,255}$/;

/** One rendered pixel: its markup and the origin the page's CSP must allow for it. */
export interface PixelMarkup {
  markup: SafeHtml;
  /** CSP directive the markup needs (`img-src` for beacons, `frame-src` for a tag-manager frame). */
  directive: 'img' | 'frame';
  origin: string;
}

interface PixelTemplate {
  directive: 'img' | 'frame';
  origin: string;
  /** Path and query of the vendor's no-script beacon, with the (checked, URL-encoded) tag inserted. */
  path: (tag: string) => string;
}

const q = encodeURIComponent;

/**
 * One template per pixel type: the vendor's no-script beacon (an image, or for the tag manager a
 * hidden frame), so the page needs no third-party script. The spec names the vendors neutrally,
 * in the order of the original platform's list; each entry below is that vendor's documented
 * no-script endpoint, all in this one table.
 */
const TEMPLATES: Record<PixelType, PixelTemplate> = {
  // tag manager container (GTM-XXXX)
  vendor01pixel: {
    directive: 'frame',
    origin: 'https://www.googletagmanager.com',
    path: (t) => `/ns.html?id=${q(t)}`,
  },
  // web analytics measurement id (G-XXXX)
  vendor02pixel: {
    directive: 'img',
    origin: 'https://www.google-analytics.com',
    path: (t) =>
      `/g/collect?v=2&tid=${q(t)}&en=page_view&cid=${Date.now()}.${Math.floor(Math.random() * 1e9)}`,
  },
  vendor03pixel: {
    directive: 'img',
    origin: 'https://www.facebook.com',
    path: (t) => `/tr?id=${q(t)}&ev=PageView&noscript=1`,
  },
  // ads conversion id (AW-123 or 123)
  vendor04pixel: {
    directive: 'img',
    origin: 'https://googleads.g.doubleclick.net',
    path: (t) => `/pagead/viewthroughconversion/${q(t.replace(/^AW-/i, ''))}/?guid=ON&script=0`,
  },
  vendor05pixel: {
    directive: 'img',
    origin: 'https://px.ads.linkedin.com',
    path: (t) => `/collect/?pid=${q(t)}&fmt=gif`,
  },
  vendor06pixel: {
    directive: 'img',
    origin: 'https://analytics.twitter.com',
    path: (t) => `/i/adsct?txn_id=${q(t)}&p_id=Twitter&tw_sale_amount=0&tw_order_quantity=0`,
  },
  // advertiser id and pixel id as `ADV:PIX`
  vendor07pixel: {
    directive: 'img',
    origin: 'https://d.adroll.com',
    path: (t) => `/ipixel/${t.split(':').map(q).join('/')}?name=page_view`,
  },
  vendor08pixel: {
    directive: 'img',
    origin: 'https://q.quora.com',
    path: (t) => `/_/ad/${q(t)}/pixel?tag=ViewContent&noscript=1`,
  },
  vendor09: {
    directive: 'img',
    origin: 'https://ct.pinterest.com',
    path: (t) => `/v3/?event=init&tid=${q(t)}&noscript=1`,
  },
  vendor10: {
    directive: 'img',
    origin: 'https://bat.bing.com',
    path: (t) => `/action/0?ti=${q(t)}&Ver=2`,
  },
  vendor11: {
    directive: 'img',
    origin: 'https://tr.snapchat.com',
    path: (t) => `/p?pid=${q(t)}&ev=PAGE_VIEW&noscript=1`,
  },
  vendor12: {
    directive: 'img',
    origin: 'https://alb.reddit.com',
    path: (t) => `/rp.gif?id=${q(t)}&event=PageVisit`,
  },
  vendor13: {
    directive: 'img',
    origin: 'https://analytics.tiktok.com',
    path: (t) => `/api/v2/pixel?sdkid=${q(t)}&event=Pageview`,
  },
};

/** The markup of one pixel, or null when its type is unknown or its tag fails the check. */
export function renderPixel(type: string, tag: string): PixelMarkup | null {
  const template = Object.prototype.hasOwnProperty.call(TEMPLATES, type)
    ? TEMPLATES[type as PixelType]
    : undefined;
  if (!template || !PIXEL_TAG_PATTERN.test(tag)) return null;
  const src = template.origin + template.path(tag);
  const markup =
    template.directive === 'frame'
      ? escaped`<iframe class="px" src="${src}" width="0" height="0" title="" aria-hidden="true"></iframe>`
      : escaped`<img class="px" src="${src}" width="1" height="1" alt="" referrerpolicy="no-referrer-when-downgrade">`;
  return { markup, directive: template.directive, origin: template.origin };
}
