import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, QueryFailedError, Repository } from 'typeorm';

import {
  ConflictError,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
  PlanService,
  Principal,
} from '@app/common';
import { AppConfig } from '@app/config';
import { Domain } from '@app/database';

import { LinkCache } from '../public/link-cache';
import { normalizeRedirectUrl, parseBrandedDomain } from './branded-domain';
import { DomainVerifier } from './domain.verifier';
import { AddDomainDto } from './dto/add-domain.dto';
import { DomainView } from './dto/domain.view';
import { UpdateDomainDto } from './dto/update-domain.dto';

const DUPLICATE = 'domain: this domain is already registered';

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError &&
  (err.driverError as { code?: string } | undefined)?.code === '23505';

@Injectable()
export class DomainsService {
  constructor(
    @InjectRepository(Domain) private readonly domains: Repository<Domain>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly verifier: DomainVerifier,
    private readonly config: AppConfig,
    private readonly cache: LinkCache,
  ) {}

  static view(d: Domain): DomainView {
    return { id: d.id, domain: d.domain, redirectroot: d.redirectRoot, redirect404: d.redirect404 };
  }

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<DomainView>> {
    const qb = this.domains
      .createQueryBuilder('d')
      .where('d.userId = :userId', { userId: auth.user.id });
    return paginate(qb, query, 'domains', DomainsService.view);
  }

  /**
   * Checks in order: the URL's shape, not the service's own host, the plan's `domain` count,
   * uniqueness, then DNS. The count is checked again under a per-user lock when inserting, so
   * concurrent requests cannot pass the limit together.
   */
  async add(auth: Principal, dto: AddDomainDto): Promise<{ id: number }> {
    const { domain, host } = parseBrandedDomain(dto.domain);
    const ownHosts = [
      new URL(this.config.publicUrl).hostname,
      this.config.SERVICE_HOST?.toLowerCase().replace(/\.$/, ''),
    ];
    if (ownHosts.includes(host))
      throw new InvalidFieldError('domain', "is the service's own host name");

    this.plans.assertCanCreate(
      auth,
      'domain',
      await this.domains.countBy({ userId: auth.user.id }),
    );
    if (await this.domains.existsBy({ host })) throw new ConflictError(DUPLICATE);
    await this.verifier.assertPointsHere(host);

    let created: { id: number };
    try {
      created = await this.db.transaction(async (em) => {
        await em.query(`SELECT pg_advisory_xact_lock(hashtext('domains'), $1)`, [auth.user.id]);
        this.plans.assertCanCreate(
          auth,
          'domain',
          await em.countBy(Domain, { userId: auth.user.id }),
        );
        const saved = await em.save(
          em.create(Domain, {
            userId: auth.user.id,
            domain,
            host,
            redirectRoot: normalizeRedirectUrl(dto.redirectroot ?? ''),
            redirect404: normalizeRedirectUrl(dto.redirect404 ?? ''),
          }),
        );
        return { id: saved.id };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(DUPLICATE);
      throw err;
    }
    // a visit before the domain existed may have cached "not a branded domain"
    await this.cache.forget({ hosts: [host] });
    return created;
  }

  /** An empty body is accepted and changes nothing (the spec makes no field mandatory). */
  async update(auth: Principal, id: number, dto: UpdateDomainDto): Promise<void> {
    const changes: Partial<Domain> = {};
    if (dto.redirectroot !== undefined)
      changes.redirectRoot = normalizeRedirectUrl(dto.redirectroot);
    if (dto.redirect404 !== undefined) changes.redirect404 = normalizeRedirectUrl(dto.redirect404);
    if (!Object.keys(changes).length) {
      if (!(await this.domains.existsBy({ id, userId: auth.user.id })))
        throw new NotFoundError('Domain');
      return;
    }
    const result = await this.domains.update({ id, userId: auth.user.id }, changes);
    if (!result.affected) throw new NotFoundError('Domain');
    // the redirector caches the domain's redirects: every api instance drops them now
    const { hosts } = await this.cache.affectedBy('domain', id);
    await this.cache.forget({ hosts });
  }

  /** Links on the domain fall back to PUBLIC_URL (links.domain_id is ON DELETE SET NULL). */
  async remove(auth: Principal, id: number): Promise<void> {
    const cached = await this.cache.affectedBy('domain', id);
    const result = await this.domains.delete({ id, userId: auth.user.id });
    if (!result.affected) throw new NotFoundError('Domain');
    // its host stops being a branded domain; its links move to the main host
    await this.cache.forget(cached);
  }
}
