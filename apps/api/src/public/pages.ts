import { LinkMeta, OverlayContent, PixelTag, SplashContent } from '@app/links';

import { contentSecurityPolicy, escaped, originOf, PageSources, SafeHtml } from './html';
import { renderPixel } from './pixel-tags';

/** An HTML page ready to send: the markup and the Content-Security-Policy that fits it. */
export interface Page {
  html: string;
  csp: string;
}

export const BASE_CSS =
  'html,body{margin:0;padding:0}body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'color:#1f2328;background:#f6f8fa}main{max-width:34rem;margin:12vh auto;padding:2rem;background:#fff;' +
  'border:1px solid #d0d7de;border-radius:8px}h1{font-size:1.4rem;margin:0 0 1rem}p{margin:.5rem 0}' +
  'a{color:#0969da}.btn{display:inline-block;padding:.5rem 1rem;border-radius:6px;background:#0969da;' +
  'color:#fff;text-decoration:none;border:0;font:inherit;cursor:pointer}input{font:inherit;padding:.45rem;' +
  'border:1px solid #d0d7de;border-radius:6px;width:100%;box-sizing:border-box;margin:.5rem 0 1rem}' +
  '.err{color:#cf222e}.muted{color:#57606a;font-size:.9rem;word-break:break-all}.px{position:absolute;' +
  'width:0;height:0;border:0;visibility:hidden}ul{padding-left:1.2rem}li{margin:.4rem 0}img.hero{max-width:100%}';

const FRAME_CSS =
  'html,body{height:100%;overflow:hidden}iframe.target{position:fixed;inset:0;width:100%;height:100%;border:0}';

/** Longest a visitor waits on the pixel page for the tags to load (a vendor may never answer). */
export const FORWARD_MAX_WAIT_MS = 2000;

/**
 * Forwards once the page (and its pixels) loaded, or after FORWARD_MAX_WAIT_MS: a beacon that
 * hangs delays the load event, and the meta refresh (for visitors without script) only counts
 * from the load event, so it cannot stand in for the cap.
 */
const FORWARD_SCRIPT =
  "(function(){var a=document.getElementById('go');if(!a)return;var gone=false;" +
  'function go(){if(!gone){gone=true;location.replace(a.href)}}' +
  `addEventListener('load',go);setTimeout(go,${FORWARD_MAX_WAIT_MS})})();`;

/** Counts down the seconds shown in #count, then forwards to #go. */
const COUNTDOWN_SCRIPT =
  "(function(){var c=document.getElementById('count'),a=document.getElementById('go');if(!c||!a)return;" +
  "var n=parseInt(c.getAttribute('data-seconds'),10)||0;var t=setInterval(function(){n-=1;" +
  'if(n<=0){clearInterval(t);location.replace(a.href)}else{c.textContent=String(n)}},1000)})();';

/** What a page is made of: its markup, inline style and script, and the origins it may load from. */
export interface PageParts {
  title: string;
  body: SafeHtml;
  head?: SafeHtml;
  /** The first style block (default BASE_CSS); `styles` follow it as blocks of their own. */
  baseStyle?: string;
  styles?: string[];
  scripts?: string[];
  sources?: PageSources;
}

/** A whole page with its strict CSP (inline style and script allowed by their hash). */
export function page(parts: PageParts): Page {
  const styles = [parts.baseStyle ?? BASE_CSS, ...(parts.styles ?? [])];
  const scripts = parts.scripts ?? [];
  const markup = escaped`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${parts.title}</title>${parts.head}${styles.map(
    (s) => escaped`<style>${new SafeHtml(s)}</style>`,
  )}</head>
<body>${parts.body}${scripts.map((s) => escaped`<script>${new SafeHtml(s)}</script>`)}</body></html>`;
  return { html: markup.value, csp: contentSecurityPolicy(styles, scripts, parts.sources) };
}

function message(title: string, text: string): Page {
  return page({ title, body: escaped`<main><h1>${title}</h1><p>${text}</p></main>` });
}

/** Fixed pages, built once. */
export const PAGES = {
  notFound: message('Link not found', 'This short link does not exist or has been removed.'),
  gone: message('Link expired', 'This short link has expired and no longer forwards anywhere.'),
  methodNotAllowed: message(
    'Method not allowed',
    'This address only answers GET and HEAD requests.',
  ),
  badRequest: message('Bad request', 'The request could not be understood.'),
  tooLarge: message('Request too large', 'The form sent was too large.'),
  tooManyMisses: message(
    'Too many unknown links',
    'Too many short links asked for here do not exist. Try again in a minute.',
  ),
  tooManyAttempts: message(
    'Too many attempts',
    'Too many wrong passwords for this link. Try again in a few minutes.',
  ),
  unavailableForLegalReasons: message(
    'Link disabled',
    'This short link has been disabled and no longer forwards anywhere.',
  ),
  flagged: message(
    'Warning: harmful destination',
    'This short link points at a site that threat intelligence reports as harmful (phishing or malware). It no longer forwards there.',
  ),
  error: message('Something went wrong', 'The link could not be opened. Try again in a moment.'),
  unavailable: message(
    'Temporarily unavailable',
    'The service is briefly unavailable. Try again in a moment.',
  ),
  dashboardNotBuilt: message(
    'Dashboard not built',
    'The dashboard has not been built on this server: run npm run build, then restart the api.',
  ),
  dashboardFileNotFound: message('Not found', 'The dashboard has no file at this address.'),
};

/** Markup and CSP sources of a link's pixels (tags failing the check are left out). */
function pixelsOf(pixels: PixelTag[]): { markup: SafeHtml[]; img: string[]; frame: string[] } {
  const out = { markup: [] as SafeHtml[], img: [] as string[], frame: [] as string[] };
  for (const p of pixels) {
    const r = renderPixel(p.type, p.tag);
    if (!r) continue;
    out.markup.push(r.markup);
    (r.directive === 'img' ? out.img : out.frame).push(r.origin);
  }
  return out;
}

/**
 * The password form of a protected link; `failed` adds the error line. Nothing of the target is
 * on the page or in its CSP before the right password: the answer to it is a redirect to the
 * target, which form-action must allow, so it allows any http(s) origin.
 */
export function passwordPage(failed: boolean): Page {
  return page({
    title: 'Password required',
    body: escaped`<main><h1>This link is protected</h1>
<form method="post" autocomplete="off"><label for="password">Enter the password to continue</label>
<input id="password" name="password" type="password" required maxlength="128" autofocus>
${failed ? escaped`<p class="err" role="alert">Wrong password, try again.</p>` : ''}
<button class="btn" type="submit">Continue</button></form></main>`,
    sources: { formAction: ["'self'", 'https:', 'http:'] },
  });
}

/** Fires the link's pixels, then forwards to the target. */
export function forwardPage(target: string, pixels: PixelTag[]): Page {
  const px = pixelsOf(pixels);
  return page({
    title: 'Redirecting…',
    head: escaped`<meta http-equiv="refresh" content="2;url=${target}">`,
    body: escaped`<main><h1>Redirecting…</h1><p>You are being forwarded to</p>
<p class="muted"><a id="go" href="${target}" rel="noreferrer">${target}</a></p></main>${px.markup}`,
    scripts: [FORWARD_SCRIPT],
    sources: { img: px.img, frame: px.frame },
  });
}

/** The splash page shown before the target, with its countdown (0 = the visitor clicks). */
export function splashPage(target: string, splash: SplashContent, pixels: PixelTag[]): Page {
  const px = pixelsOf(pixels);
  const image = splash.imageUrl ? originOf(splash.imageUrl) : null;
  const link = splash.link && originOf(splash.link) ? splash.link : null;
  const picture = image ? escaped`<img class="hero" src="${splash.imageUrl}" alt="">` : null;
  const seconds = Math.max(0, Math.min(600, Math.floor(splash.countdown)));
  return page({
    title: splash.title || 'Redirecting…',
    head:
      seconds > 0
        ? escaped`<meta http-equiv="refresh" content="${seconds};url=${target}">`
        : undefined,
    body: escaped`<main>${splash.title ? escaped`<h1>${splash.title}</h1>` : ''}
${picture ? (link ? escaped`<p><a href="${link}" target="_blank" rel="noopener noreferrer">${picture}</a></p>` : escaped`<p>${picture}</p>`) : ''}
${splash.message ? escaped`<p>${splash.message}</p>` : ''}
${link ? escaped`<p class="muted"><a id="more" href="${link}" target="_blank" rel="noopener noreferrer">${link}</a></p>` : ''}
<p><a class="btn" id="go" href="${target}" rel="noreferrer">${splash.buttonText || 'Continue'}</a></p>
${seconds > 0 ? escaped`<p class="muted">Forwarding in <span id="count" data-seconds="${seconds}">${seconds}</span> s</p>` : ''}
</main>${px.markup}`,
    scripts: seconds > 0 ? [COUNTDOWN_SCRIPT] : [],
    sources: { img: [...px.img, ...(image ? [image] : [])], frame: px.frame },
  });
}

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const POSITIONS: Record<string, string> = {
  bl: 'left:1rem;bottom:1rem',
  br: 'right:1rem;bottom:1rem',
  tl: 'left:1rem;top:1rem',
  tr: 'right:1rem;top:1rem',
};

function overlayCss(o: OverlayContent): string {
  const color = (c: string, fallback: string) => (HEX_COLOR.test(c) ? c : fallback);
  return (
    `.overlay{position:fixed;${POSITIONS[o.position] ?? POSITIONS.bl};max-width:22rem;padding:1rem 1.2rem;` +
    `border-radius:8px;box-shadow:0 4px 18px rgba(0,0,0,.25);background:${color(o.bgColor, '#ffffff')};` +
    `color:${color(o.textColor, '#000000')};z-index:10}.overlay p{margin:0 0 .7rem}` +
    `.overlay .btn{background:${color(o.buttonColor, '#0055ff')}}`
  );
}

/** The target in a full-page frame (frame links), with the CTA overlay box (overlay links). */
export function framePage(
  target: string,
  overlay: OverlayContent | null,
  pixels: PixelTag[],
  title: string,
): Page {
  const px = pixelsOf(pixels);
  const origin = originOf(target);
  const button = overlay?.buttonText && originOf(overlay.buttonLink) ? overlay : null;
  return page({
    title: title || target,
    body: escaped`<iframe class="target" src="${target}" title="${title || target}"
 sandbox="allow-forms allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"></iframe>
${
  overlay
    ? escaped`<aside class="overlay" role="complementary">${overlay.message ? escaped`<p>${overlay.message}</p>` : ''}${
        button
          ? escaped`<a class="btn" href="${button.buttonLink}" target="_blank" rel="noopener noreferrer">${button.buttonText}</a>`
          : ''
      }</aside>`
    : ''
}${px.markup}`,
    styles: [FRAME_CSS, ...(overlay ? [overlayCss(overlay)] : [])],
    sources: { img: px.img, frame: [...(origin ? [origin] : []), ...px.frame] },
  });
}

/**
 * What link-preview fetchers (social networks, chat apps) get for a link with preview tags: a
 * small page carrying Open Graph and Twitter Card tags, escaped, that loads nothing.
 */
export function previewPage(meta: LinkMeta, target: string): Page {
  const title = meta.title || target;
  const tag = (attr: 'property' | 'name', key: string, value: string | null) =>
    value ? escaped`<meta ${new SafeHtml(attr)}="${key}" content="${value}">` : '';
  return page({
    title,
    head: escaped`${tag('property', 'og:type', 'website')}${tag('property', 'og:title', title)}${tag(
      'property',
      'og:description',
      meta.description,
    )}${tag('property', 'og:image', meta.image)}${tag(
      'name',
      'twitter:card',
      meta.image ? 'summary_large_image' : 'summary',
    )}${tag('name', 'twitter:title', title)}${tag('name', 'twitter:description', meta.description)}${tag(
      'name',
      'twitter:image',
      meta.image,
    )}`,
    body: escaped`<main><h1>${title}</h1>${meta.description ? escaped`<p>${meta.description}</p>` : ''}
<p class="muted"><a href="${target}" rel="noreferrer">${target}</a></p></main>`,
  });
}
