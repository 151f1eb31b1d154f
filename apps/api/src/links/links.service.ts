import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, QueryFailedError, Repository } from 'typeorm';

import {
  BadRequestError,
  ConflictError,
  formatDateTime,
  InvalidFieldError,
  NotFoundError,
  Paginated,
  pageRequest,
  parseDateTime,
  PlanService,
  Principal,
} from '@app/common';
import { AppConfig } from '@app/config';
import {
  Campaign,
  Channel,
  ChannelItem,
  Domain,
  Link,
  LinkPixel,
  LinkType,
  Overlay,
  Pixel,
  SplashPage,
} from '@app/database';
import { LinkStatistics, StatsReader } from '@app/stats';

import { LinkCache } from '../public/link-cache';
import { hashPassword } from '../users/passwords';
import { aliasProblem, generateAlias } from './alias';
import { CreateLinkDto } from './dto/create-link.dto';
import { ListLinksDto } from './dto/list-links.dto';
import { LinkDetailsView, LinkItemView } from './dto/link.views';
import { UpdateLinkDto } from './dto/update-link.dto';
import { hostOfDomainRef, likePattern, storedUrl } from './link-input';

const GENERATE_ATTEMPTS = 8;

/** How a link forwards, as stored. */
interface LinkStyle {
  type: LinkType;
  overlayId: number | null;
  splashId: number | null;
}

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError &&
  (err.driverError as { code?: string } | undefined)?.code === '23505';

/** Short links of kind `link`: create, list, read with statistics, update, delete. */
@Injectable()
export class LinksService {
  constructor(
    @InjectRepository(Link) private readonly links: Repository<Link>,
    @InjectRepository(Domain) private readonly domains: Repository<Domain>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly stats: StatsReader,
    private readonly cache: LinkCache,
    private readonly config: AppConfig,
  ) {}

  async create(auth: Principal, dto: CreateLinkDto): Promise<{ id: number; shorturl: string }> {
    const userId = auth.user.id;
    if (dto.custom !== undefined && dto.custom !== null) this.checkCustom(auth, dto.custom);
    const expiresAt = this.expiry(dto.expiry);
    const passwordHash = dto.password ? await hashPassword(dto.password) : null;

    const created = await this.db.transaction(async (em) => {
      const domain = await this.domainFor(em, userId, dto.domain);
      const style = await this.styleFor(em, auth, dto.type ?? 'direct');
      const pixelIds = await this.pixelsFor(em, auth, dto.pixels);
      const campaignId = dto.campaign ? await this.campaignFor(em, userId, dto.campaign) : null;
      const channelId = dto.channel ? await this.channelFor(em, userId, dto.channel) : null;

      // one creation at a time per user, so the plan's link count holds under concurrency
      await em.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      this.plans.assertCanCreateLink(
        auth,
        await em.count(Link, { where: { userId, kind: 'link' } }),
      );

      const values = {
        userId,
        kind: 'link' as const,
        domainId: domain?.id ?? null,
        url: storedUrl(dto.url),
        title: dto.title ?? '',
        description: dto.description ?? '',
        ...style,
        passwordHash,
        expiresAt,
        campaignId,
      };
      const { id, alias } = await this.insert(em, values, dto.custom ?? null);
      if (pixelIds.length)
        await em.insert(
          LinkPixel,
          pixelIds.map((pixelId) => ({ linkId: id, pixelId })),
        );
      if (channelId) await this.assignChannel(em, userId, channelId, id);
      return { id, alias, domain };
    });

    // a visit before creation may have cached "no such alias"
    await this.cache.forget({ aliases: [created.alias] });
    return {
      id: created.id,
      shorturl: this.shortUrl(created.domain?.domain ?? null, created.alias),
    };
  }

  async list(auth: Principal, query: ListLinksDto): Promise<Paginated<LinkItemView>> {
    const { limit, page, offset } = pageRequest(query);
    const qb = this.links
      .createQueryBuilder('l')
      .where('l.user_id = :userId', { userId: auth.user.id })
      .andWhere("l.kind = 'link'");
    if (query.q) {
      qb.andWhere(
        "(l.url ILIKE :q ESCAPE '\\' OR l.title ILIKE :q ESCAPE '\\' OR l.alias ILIKE :q ESCAPE '\\')",
        {
          q: likePattern(query.q),
        },
      );
    }
    if (query.short !== undefined) qb.andWhere('l.alias = :short', { short: query.short });
    if (query.order === 'click') {
      qb.leftJoin('link_stats_total', 't', 't.link_id = l.id')
        .orderBy('COALESCE(t.clicks, 0)', 'DESC')
        .addOrderBy('l.id', 'DESC');
    } else {
      qb.orderBy('l.id', 'DESC');
    }
    const [rows, total] = await qb.offset(offset).limit(limit).getManyAndCount();
    const items = await this.items(rows);
    return new Paginated('urls', items, total, limit, page);
  }

  async get(
    auth: Principal,
    id: number,
  ): Promise<{ id: number; details: LinkDetailsView; data: LinkStatistics }> {
    const link = await this.links
      .createQueryBuilder('l')
      .addSelect('l.passwordHash')
      .where('l.id = :id AND l.user_id = :userId', { id, userId: auth.user.id })
      .andWhere("l.kind = 'link'")
      .getOne();
    if (!link) throw new NotFoundError('Link');
    const [[item], pixels, data] = await Promise.all([
      this.items([link]),
      this.db.getRepository(LinkPixel).find({ where: { linkId: id }, order: { pixelId: 'ASC' } }),
      this.stats.forLink(id),
    ]);
    const domain = link.domainId
      ? await this.domains.findOne({ where: { id: link.domainId } })
      : null;
    const details: LinkDetailsView = {
      ...item,
      domain: domain ? domain.domain : null,
      type: link.type,
      overlay: link.overlayId,
      splash: link.splashId,
      expiry: formatDateTime(link.expiresAt),
      password: link.passwordHash !== null,
      pixels: pixels.map((p) => p.pixelId),
      campaign: link.campaignId,
    };
    return { id, details, data };
  }

  async update(
    auth: Principal,
    id: number,
    dto: UpdateLinkDto,
  ): Promise<{ id: number; short: string; shorturl: string }> {
    if (Object.values(dto).every((v) => v === undefined)) {
      throw new BadRequestError(
        'Send at least one field to change: url, custom, domain, type, expiry, password, title, description, pixels, campaign, channel',
      );
    }
    const userId = auth.user.id;
    const link = await this.links.findOne({ where: { id, userId, kind: 'link' } });
    if (!link) throw new NotFoundError('Link');
    const newAlias = dto.custom !== undefined && dto.custom !== link.alias ? dto.custom : null;
    if (newAlias !== null) this.checkCustom(auth, newAlias);
    const changes: Partial<Link> = {};
    if (dto.expiry !== undefined) changes.expiresAt = this.expiry(dto.expiry);
    if (dto.password !== undefined)
      changes.passwordHash = dto.password ? await hashPassword(dto.password) : null;
    if (dto.url !== undefined) changes.url = storedUrl(dto.url);
    if (dto.title !== undefined) changes.title = dto.title;
    if (dto.description !== undefined) changes.description = dto.description;

    const domain = await this.db.transaction(async (em) => {
      const locked = await em.query('SELECT id FROM links WHERE id = $1 FOR UPDATE', [id]);
      if (!locked.length) throw new NotFoundError('Link');
      let current: Domain | null = null;
      if (dto.domain !== undefined) {
        current = await this.domainFor(em, userId, dto.domain);
        changes.domainId = current?.id ?? null;
      } else if (link.domainId) {
        current = await em.findOne(Domain, { where: { id: link.domainId } });
      }
      if (dto.type !== undefined) Object.assign(changes, await this.styleFor(em, auth, dto.type));
      const pixelIds = dto.pixels !== undefined ? await this.pixelsFor(em, auth, dto.pixels) : null;
      if (dto.campaign !== undefined)
        changes.campaignId = dto.campaign ? await this.campaignFor(em, userId, dto.campaign) : null;
      const channelId =
        dto.channel !== undefined ? await this.channelFor(em, userId, dto.channel) : null;
      if (newAlias !== null) {
        if (await em.exists(Link, { where: { alias: newAlias } })) throw this.aliasTaken();
        changes.alias = newAlias;
      }

      if (Object.keys(changes).length) {
        await em.update(Link, { id }, changes).catch((err: unknown) => {
          throw isUniqueViolation(err) ? this.aliasTaken() : err;
        });
      }
      if (pixelIds) {
        await em.delete(LinkPixel, { linkId: id });
        if (pixelIds.length)
          await em.insert(
            LinkPixel,
            pixelIds.map((pixelId) => ({ linkId: id, pixelId })),
          );
      }
      if (channelId) await this.assignChannel(em, userId, channelId, id);
      return current;
    });

    const alias = newAlias ?? link.alias;
    await this.cache.forget({ aliases: newAlias ? [link.alias, newAlias] : [link.alias] });
    return { id, short: alias, shorturl: this.shortUrl(domain?.domain ?? null, alias) };
  }

  async remove(auth: Principal, id: number): Promise<void> {
    const alias = await this.db.transaction(async (em) => {
      const result = await em
        .createQueryBuilder()
        .delete()
        .from(Link)
        .where("id = :id AND user_id = :userId AND kind = 'link'", { id, userId: auth.user.id })
        .returning(['alias'])
        .execute();
      const rows = result.raw as Array<{ alias: string }>;
      if (!rows.length) throw new NotFoundError('Link');
      await em.delete(ChannelItem, { itemType: 'links', itemId: id });
      return rows[0].alias;
    });
    await this.cache.forget({ aliases: [alias] });
  }

  /** The documented link items, with their short URLs and click totals. */
  private async items(rows: Link[]): Promise<LinkItemView[]> {
    if (!rows.length) return [];
    const domainIds = [
      ...new Set(rows.map((r) => r.domainId).filter((d): d is number => d !== null)),
    ];
    const [domains, totals] = await Promise.all([
      domainIds.length ? this.domains.find({ where: { id: In(domainIds) } }) : Promise.resolve([]),
      this.stats.totals(rows.map((r) => r.id)),
    ]);
    const domainUrl = new Map(domains.map((d) => [d.id, d.domain]));
    return rows.map((r) => {
      const t = totals.get(r.id);
      return {
        id: r.id,
        alias: r.alias,
        shorturl: this.shortUrl(r.domainId ? (domainUrl.get(r.domainId) ?? null) : null, r.alias),
        longurl: r.url,
        title: r.title,
        description: r.description,
        clicks: t?.clicks ?? 0,
        uniqueClicks: t?.uniqueClicks ?? 0,
        date: formatDateTime(r.createdAt) as string,
      };
    });
  }

  private shortUrl(domainUrl: string | null, alias: string): string {
    return `${domainUrl ? domainUrl.replace(/\/+$/, '') : this.config.publicUrl}/${alias}`;
  }

  private checkCustom(auth: Principal, alias: string): void {
    this.plans.assertFeature(auth, 'alias');
    const problem = aliasProblem(alias);
    if (problem) throw new InvalidFieldError('custom', problem);
  }

  private aliasTaken(): ConflictError {
    return new ConflictError('custom: this alias is already taken');
  }

  private expiry(value: string | null | undefined): Date | null {
    if (value === undefined || value === null) return null;
    const date = parseDateTime(value);
    if (!date)
      throw new InvalidFieldError('expiry', 'must be a valid date-time YYYY-MM-DD HH:MM:SS');
    if (date.getTime() <= Date.now())
      throw new InvalidFieldError('expiry', 'must be in the future');
    return date;
  }

  /** Inserts the row with the custom alias (409 when taken) or a generated one (retried on collision). */
  private async insert(
    em: EntityManager,
    values: Partial<Link>,
    custom: string | null,
  ): Promise<{ id: number; alias: string }> {
    for (let attempt = 0; attempt < GENERATE_ATTEMPTS; attempt++) {
      const alias = custom ?? generateAlias(attempt);
      const result = await em
        .createQueryBuilder()
        .insert()
        .into(Link)
        .values({ ...values, alias })
        .orIgnore()
        .returning(['id'])
        .execute();
      const id = (result.raw as Array<{ id: number }>)[0]?.id;
      if (id) return { id, alias };
      if (custom) throw this.aliasTaken();
    }
    throw new Error('could not generate a free alias');
  }

  /** The caller's branded domain named by id, host name or `http(s)://host`; null for none. */
  private async domainFor(
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

  private async styleFor(
    em: EntityManager,
    auth: Principal,
    type: string | number,
  ): Promise<LinkStyle> {
    const userId = auth.user.id;
    if (type === 'direct' || type === 'frame') return { type, overlayId: null, splashId: null };
    if (type === 'splash') {
      this.plans.assertFeature(auth, 'splash');
      const splash = await em.findOne(SplashPage, { where: { userId }, order: { id: 'DESC' } });
      if (!splash) throw new InvalidFieldError('type', 'you have no splash page');
      return { type: 'splash', overlayId: null, splashId: splash.id };
    }
    this.plans.assertFeature(auth, 'overlay');
    const overlay =
      typeof type === 'number'
        ? await em.findOne(Overlay, { where: { id: type, userId } })
        : await em.findOne(Overlay, { where: { userId }, order: { id: 'DESC' } });
    if (!overlay) {
      if (typeof type === 'number') throw new NotFoundError('Overlay');
      throw new InvalidFieldError('type', 'you have no CTA overlay');
    }
    return { type: 'overlay', overlayId: overlay.id, splashId: null };
  }

  private async pixelsFor(
    em: EntityManager,
    auth: Principal,
    ids: number[] | undefined,
  ): Promise<number[]> {
    if (!ids?.length) return [];
    this.plans.assertFeature(auth, 'pixels');
    const unique = [...new Set(ids)];
    const owned = await em.find(Pixel, {
      select: { id: true },
      where: { id: In(unique), userId: auth.user.id },
    });
    if (owned.length !== unique.length) throw new NotFoundError('Pixel');
    return unique.sort((a, b) => a - b);
  }

  private async campaignFor(em: EntityManager, userId: number, id: number): Promise<number> {
    if (!(await em.exists(Campaign, { where: { id, userId } })))
      throw new NotFoundError('Campaign');
    return id;
  }

  private async channelFor(em: EntityManager, userId: number, id: number): Promise<number> {
    if (!(await em.exists(Channel, { where: { id, userId } }))) throw new NotFoundError('Channel');
    return id;
  }

  /** Assigning twice is harmless. */
  private async assignChannel(
    em: EntityManager,
    userId: number,
    channelId: number,
    linkId: number,
  ): Promise<void> {
    await em
      .createQueryBuilder()
      .insert()
      .into(ChannelItem)
      .values({ channelId, userId, itemType: 'links', itemId: linkId })
      .orIgnore()
      .execute();
  }
}
