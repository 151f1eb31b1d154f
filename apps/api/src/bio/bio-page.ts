import { BioContent } from '@app/links';

import { escaped, originOf, SafeHtml } from '../public/html';
import { Page, page } from '../public/pages';
import { SOCIAL_NETWORKS, SocialNetwork } from './bio-fields';

/**
 * The bio page's style: one column, at most 36rem wide, every button a full-width block at least
 * 48 px tall (a thumb's target), long words wrapped (no horizontal scrolling on a 320 px phone).
 */
const LAYOUT_CSS =
  '*{box-sizing:border-box}html,body{margin:0;padding:0}body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'min-height:100vh;overflow-wrap:anywhere;-webkit-text-size-adjust:100%}main{max-width:36rem;margin:0 auto;' +
  'padding:2.5rem 1rem 3rem;text-align:center}.avatar{display:block;width:96px;height:96px;margin:0 auto 1rem;' +
  'border-radius:50%;object-fit:cover}h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem}.about{margin:0 0 1.5rem}' +
  'ul{list-style:none;margin:0;padding:0}.links li{margin:0 0 .75rem}.button{display:flex;align-items:center;' +
  'justify-content:center;width:100%;min-height:48px;padding:.75rem 1rem;border-radius:12px;font-weight:600;' +
  'text-decoration:none}.socials{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem;margin:1.5rem 0 0}' +
  '.socials a{display:inline-flex;align-items:center;min-height:44px;padding:.5rem 1rem;border-radius:999px;' +
  'text-decoration:none}.empty{opacity:.7}';

const THEME_CSS: Record<string, string> = {
  light:
    'body{background:#f6f8fa;color:#1f2328}.about{color:#57606a}.button,.socials a{background:#fff;color:#1f2328;' +
    'border:1px solid #d0d7de}.button:hover,.button:focus,.socials a:hover,.socials a:focus{border-color:#0969da}',
  dark:
    'body{background:#0d1117;color:#e6edf3}.about{color:#9da7b3}.button,.socials a{background:#161b22;color:#e6edf3;' +
    'border:1px solid #30363d}.button:hover,.button:focus,.socials a:hover,.socials a:focus{border-color:#58a6ff}',
};

/**
 * A bio page: avatar, heading (title, or the name when untitled), description, a button per
 * link and a row of social links. Every button and social link points at `?go=<n>` /
 * `?go=<network>` on the page's own address, which counts the visit and forwards. All text is
 * escaped; the CSP allows the two style blocks by hash, the avatar's origin for images, and
 * nothing else (no script, no form, no frame).
 */
export function bioPage(bio: BioContent, title: string): Page {
  const heading = title || bio.name;
  const avatar = bio.avatar ? originOf(bio.avatar) : null;
  const socials = Object.keys(SOCIAL_NETWORKS).filter(
    (n) => typeof bio.socials[n] === 'string',
  ) as SocialNetwork[];
  const meta = (property: string, content: string) =>
    content ? escaped`<meta property="${property}" content="${content}">` : '';
  return page({
    title: heading,
    head: escaped`${bio.description ? escaped`<meta name="description" content="${bio.description}">` : ''}${meta(
      'og:title',
      heading,
    )}${meta('og:description', bio.description)}${avatar ? meta('og:image', bio.avatar) : ''}`,
    baseStyle: LAYOUT_CSS,
    styles: [THEME_CSS[bio.theme] ?? THEME_CSS.light],
    body: escaped`<main>${
      avatar ? escaped`<img class="avatar" src="${bio.avatar}" alt="" width="96" height="96">` : ''
    }<h1>${heading}</h1>${bio.description ? escaped`<p class="about">${bio.description}</p>` : ''}${
      bio.links.length
        ? escaped`<ul class="links">${bio.links.map(
            (l) =>
              escaped`<li><a class="button" href="?go=${l.n}" rel="nofollow">${l.title}</a></li>`,
          )}</ul>`
        : socials.length
          ? ''
          : escaped`<p class="empty">No links yet.</p>`
    }${
      socials.length
        ? escaped`<ul class="socials">${socials.map(
            (n) =>
              escaped`<li><a href="?go=${n}" rel="nofollow me">${new SafeHtml(SOCIAL_NETWORKS[n])}</a></li>`,
          )}</ul>`
        : ''
    }</main>`,
    sources: { img: avatar ? [avatar] : [] },
  });
}
