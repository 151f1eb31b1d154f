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

/** The event data of a link row as it is now in `em`'s transaction. */
export async function linkEventData(
  em: EntityManager,
  urls: PublicUrls,
  id: number,
): Promise<LinkEventData> {
  const link = await em.findOneOrFail(Link, { where: { id } });
  const domain = link.domainId ? await em.findOne(Domain, { where: { id: link.domainId } }) : null;
  return {
    id: link.id,
    alias: link.alias,
    shorturl: urls.short(link.alias, domain?.domain),
    longurl: link.url,
    title: link.title,
    description: link.description,
    domain: domain?.host ?? null,
    date: formatDateTime(link.createdAt) as string,
  };
}
