import { EntityManager } from 'typeorm';

import { formatDateTime, PublicUrls } from '@app/common';
import { Domain, Link } from '@app/database';

/** `data` of link.created and link.updated (documented in the webhooks' OpenAPI entries). */
export interface LinkEventData {
  id: number;
  alias: string;
  shorturl: string;
  longurl: string;
  title: string;
  description: string;
  /** the branded domain's host, or null */
  domain: string | null;
  date: string;
}

/**
 * The one builder of a link's event data: `link.created` (ShortCodes, without `id` when the
 * statement that inserts the link adds it) and `link.updated` (linkEventData).
 */
export function linkEvent(
  urls: PublicUrls,
  link: Pick<Link, 'alias' | 'url' | 'title' | 'description'> & { id?: number },
  domain: Pick<Domain, 'domain' | 'host'> | null,
  date: Date,
): Omit<LinkEventData, 'id'> & { id?: number } {
  return {
    ...(link.id !== undefined ? { id: link.id } : {}),
    alias: link.alias,
    shorturl: urls.short(link.alias, domain?.domain),
    longurl: link.url,
    title: link.title,
    description: link.description,
    domain: domain?.host ?? null,
    date: formatDateTime(date) as string,
  };
}

/** The event data of a link row as it is now in `em`'s transaction (`link.updated`). */
export async function linkEventData(
  em: EntityManager,
  urls: PublicUrls,
  id: number,
): Promise<LinkEventData> {
  const link = await em.findOneOrFail(Link, { where: { id } });
  const domain = link.domainId ? await em.findOne(Domain, { where: { id: link.domainId } }) : null;
  return linkEvent(urls, link, domain, link.createdAt) as LinkEventData;
}
