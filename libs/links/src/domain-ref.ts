import { EntityManager } from 'typeorm';

import { InvalidFieldError, isPositiveId, validationRule } from '@app/common';
import { Domain } from '@app/database';

import { hostOfDomainRef } from './link-input';

/**
 * `domain` of a link or a bio page: one of the caller's branded domains, named by its id or its
 * host name (`brand.example`, `https://brand.example`).
 */
export const IsDomainRef = validationRule(
  'isDomainRef',
  'domain must be a branded domain id (integer) or its host name',
  (v) => isPositiveId(v) || (typeof v === 'string' && v.length >= 1 && v.length <= 270),
);

/** The caller's branded domain named by id, host name or `http(s)://host`; null for none. */
export async function ownDomain(
  em: EntityManager,
  userId: number,
  ref: number | string | null | undefined,
): Promise<Domain | null> {
  if (ref === undefined || ref === null) return null;
  let domain: Domain | null = null;
  if (typeof ref === 'number') {
    domain = await em.findOne(Domain, { where: { id: ref, userId } });
  } else {
    const host = hostOfDomainRef(ref);
    if (host) domain = await em.findOne(Domain, { where: { host, userId } });
  }
  if (!domain) throw new InvalidFieldError('domain', 'is not one of your branded domains');
  return domain;
}
