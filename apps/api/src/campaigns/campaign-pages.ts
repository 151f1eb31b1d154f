import { escaped } from '../public/html';
import { Page, page } from '../public/pages';

/** A public campaign's list page: its links, title and short URL. */
export function campaignListPage(
  name: string,
  links: Array<{ title: string; shorturl: string }>,
): Page {
  const title = name || 'Links';
  return page({
    title,
    body: escaped`<main><h1>${title}</h1>${
      links.length
        ? escaped`<ul>${links.map(
            (l) =>
              escaped`<li>${l.title ? escaped`${l.title}<br>` : ''}<a href="${l.shorturl}">${l.shorturl}</a></li>`,
          )}</ul>`
        : escaped`<p>This campaign has no links yet.</p>`
    }</main>`,
  });
}
