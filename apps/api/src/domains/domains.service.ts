import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  AuditLog,
  ConflictError,
  fieldsOf,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginateOwn,
  Paginated,
  PlanService,
  Principal,
  PublicUrls,
  randomString,
} from '@app/common';
import { AppConfig } from '@app/config';
import { Domain, isUniqueViolation } from '@app/database';
import { DestinationPolicy } from '@app/links';

import { LinkCache } from '../link-cache/link-cache';
import { normalizeRedirectUrl, parseBrandedDomain } from './branded-domain';
import { DomainVerifier } from './domain.verifier';
import { AddDomainDto } from './dto/add-domain.dto';
import { DomainCreatedView } from './dto/domain-created.view';
import { domainView, DomainView } from './dto/domain.view';
import { UpdateDomainDto } from './dto/update-domain.dto';

const DUPLICATE = 'domain: this domain is already registered';

/**
 * How long a claim of a host stays unverified before another user may claim it (DOMAIN_VERIFY=dns):
 * a squatter who adds a host they do not control cannot lock its real owner out.
 */
export const UNVERIFIED_CLAIM_HOURS = 72;

@Injectable()
export class DomainsService {
  constructor(
    @InjectRepository(Domain) private readonly domains: Repository<Domain>,
    private readonly plans: PlanService,
    private readonly verifier: DomainVerifier,
    private readonly config: AppConfig,
    private readonly cache: LinkCache,
    private readonly destinations: DestinationPolicy,
    private readonly urls: PublicUrls,
    private readonly audit: AuditLog,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<DomainView>> {
    const target = this.verifier.target();
    return paginateOwn(this.domains, auth.user.id, query, 'domains', (d) => domainView(d, target));
  }

  /**
   * Checks in order: the URL's shape, not the service's own host or a subdomain of it, the
   * redirects (no loops, nothing blocked), the plan's `domain` count, uniqueness, then DNS. The
   * count is checked again under a per-user lock when inserting, so concurrent requests cannot
   * pass the limit together. With DOMAIN_VERIFY=dns the domain serves only once ownership is
   * proven (`verify`); the answer names the TXT record to create. A host another user claimed
   * more than UNVERIFIED_CLAIM_HOURS ago without proving it is taken over (their claim deleted).
   */
  async add(auth: Principal, dto: AddDomainDto): Promise<DomainCreatedView> {
    const { domain, host } = parseBrandedDomain(dto.domain);
    const ownHosts = [
      this.urls.host,
      this.config.SERVICE_HOST?.toLowerCase().replace(/\.$/, ''),
    ].filter((h): h is string => !!h);
    if (ownHosts.includes(host))
      throw new InvalidFieldError('domain', "is the service's own host name");
    if (ownHosts.some((own) => host.endsWith(`.${own}`)))
      throw new InvalidFieldError('domain', "must not be a subdomain of the service's own host");
    await this.checkRedirects(host, dto);

    this.plans.assertCanCreate(
      auth,
      'domain',
      await this.domains.countBy({ userId: auth.user.id }),
    );
    const existing = await this.domains.findOneBy({ host });
    if (existing && !this.expiredClaim(existing, auth)) throw new ConflictError(DUPLICATE);
    await this.verifier.assertPointsHere(host);
    // another user's claim left unverified for 72 h gives way (it never served)
    if (existing) await this.releaseExpiredClaim(existing, auth);

    let created: Domain;
    try {
      created = await this.plans.createCounted(
        auth,
        'domain',
        Domain,
        {
          domain,
          host,
          redirectRoot: normalizeRedirectUrl(dto.redirectroot ?? ''),
          redirect404: normalizeRedirectUrl(dto.redirect404 ?? ''),
          verifyToken: randomString(32),
          verifiedAt: this.config.DOMAIN_VERIFY === 'off' ? new Date() : null,
        },
        this.audit.created(auth, 'domain', fieldsOf(dto)),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      throw err;
    }
    // a visit before the domain existed may have cached "not a branded domain"
    await this.cache.forget({ hosts: [host] });
    return {
      id: created.id,
      verification: created.verifiedAt
        ? null
        : { type: 'TXT', name: DomainVerifier.recordName(host), value: created.verifyToken },
    };
  }

  /**
   * `POST /api/domain/:id/verify`: the domain serves once the TXT record `_linkverify.<host>`
   * holds its token (at once with DOMAIN_VERIFY=off). The message never repeats what DNS said.
   */
  async verify(auth: Principal, id: number): Promise<{ message: string }> {
    const domain = await this.domains.findOneBy({ id, userId: auth.user.id });
    if (!domain) throw new NotFoundError('Domain');
    if (domain.verifiedAt) return { message: 'Domain ownership is verified.' };
    if (!(await this.verifier.ownershipProven(domain.host, domain.verifyToken))) {
      throw new InvalidFieldError(
        'domain',
        `ownership not proven yet: create a TXT record ${DomainVerifier.recordName(domain.host)} holding the verification token, then try again (DNS changes can take a while)`,
      );
    }
    const audited = {
      action: 'domain.verify',
      resource: { type: 'domain', id },
      changes: ['verified'],
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.update(
        Domain,
        { id, userId: auth.user.id },
        { verifiedAt: new Date() },
      );
      if (!result.affected) throw new NotFoundError('Domain');
    });
    await this.cache.forget({ hosts: [domain.host] });
    return { message: 'Domain ownership is verified.' };
  }

  /** Another user's claim that has stayed unverified for UNVERIFIED_CLAIM_HOURS. */
  private expiredClaim(domain: Domain, auth: Principal): boolean {
    return (
      domain.verifiedAt === null &&
      domain.userId !== auth.user.id &&
      Date.now() - domain.createdAt.getTime() >= UNVERIFIED_CLAIM_HOURS * 3_600_000
    );
  }

  /**
   * Deletes the expired claim (checked again in the statement: the database clock decides); its
   * links move to the main host, as when a domain is deleted.
   */
  private async releaseExpiredClaim(claim: Domain, auth: Principal): Promise<void> {
    const cached = await this.cache.affectedBy('domain', claim.id);
    const released = await this.domains
      .createQueryBuilder()
      .delete()
      .where('id = :id AND verified_at IS NULL AND user_id <> :userId', {
        id: claim.id,
        userId: auth.user.id,
      })
      .andWhere(`created_at <= now() - make_interval(hours => :hours)`, {
        hours: UNVERIFIED_CLAIM_HOURS,
      })
      .execute();
    if (!released.affected) throw new ConflictError(DUPLICATE);
    await this.cache.forget(cached);
  }

  /** redirectroot / redirect404 may not point at this service (a loop) nor at a blocked site. */
  private async checkRedirects(host: string, dto: Partial<AddDomainDto>): Promise<void> {
    for (const field of ['redirectroot', 'redirect404'] as const) {
      const url = dto[field];
      if (!url) continue;
      await this.destinations.check(field, url, { loopHost: host });
    }
  }

  /** An empty body is accepted and changes nothing (the spec makes no field mandatory). */
  async update(auth: Principal, id: number, dto: UpdateDomainDto): Promise<void> {
    const current = await this.domains.findOneBy({ id, userId: auth.user.id });
    if (!current) throw new NotFoundError('Domain');
    await this.checkRedirects(current.host, dto);
    const changes: Partial<Domain> = {};
    if (dto.redirectroot !== undefined)
      changes.redirectRoot = normalizeRedirectUrl(dto.redirectroot);
    if (dto.redirect404 !== undefined) changes.redirect404 = normalizeRedirectUrl(dto.redirect404);
    if (!Object.keys(changes).length) {
      if (!(await this.domains.existsBy({ id, userId: auth.user.id })))
        throw new NotFoundError('Domain');
      return;
    }
    const audited = {
      action: 'domain.update',
      resource: { type: 'domain', id },
      changes: fieldsOf(dto),
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.update(Domain, { id, userId: auth.user.id }, changes);
      if (!result.affected) throw new NotFoundError('Domain');
    });
    // the redirector caches the domain's redirects: every api instance drops them now
    const { hosts } = await this.cache.affectedBy('domain', id);
    await this.cache.forget({ hosts });
  }

  /** Links on the domain fall back to PUBLIC_URL (links.domain_id is ON DELETE SET NULL). */
  async remove(auth: Principal, id: number): Promise<void> {
    const cached = await this.cache.affectedBy('domain', id);
    const audited = { action: 'domain.delete', resource: { type: 'domain', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(Domain, { id, userId: auth.user.id });
      if (!result.affected) throw new NotFoundError('Domain');
    });
    // its host stops being a branded domain; its links move to the main host
    await this.cache.forget(cached);
  }
}
