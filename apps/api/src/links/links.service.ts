import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';

import {
  assertSendsAField,
  AuditLog,
  fieldsOf,
  hashPassword,
  ListBudget,
  mapError,
  NotFoundError,
  Paginated,
  pageRequest,
  PlanService,
  Principal,
  PublicUrls,
  storedUrl,
  validateBody,
} from '@app/common';
import { ChannelItem, Domain, Link, LinkPixel } from '@app/database';
import {
  DestinationPolicy,
  expiryDate,
  LinkFlags,
  linkEventData,
  linkTargets,
  ShortCodes,
} from '@app/links';
import { LinkStatistics, LinkTotals, StatsReader } from '@app/stats';
import { WebhookOutbox } from '@app/webhooks';

import { LinkCache } from '../link-cache/link-cache';
import { Takedowns } from '../takedowns/takedowns';

import { BulkLinksDto } from './dto/bulk-links.dto';
import { CreateLinkDto } from './dto/create-link.dto';
import { BulkItemView, LinkDetailsView, LinkItemView } from './dto/link.view';
import { ListLinksDto } from './dto/list-links.dto';
import { UpdateLinkDto } from './dto/update-link.dto';
import { LinkListQuery } from './link-list-query';
import { destinationsOf, optionColumns } from './link-options';
import { LinkReferences } from './link-references';
import { LinkViews } from './link-views';

/**
 * Short links of kind `link`: create, list, read with statistics, update, delete. What a body
 * names (domain, pixels, campaign, …) is resolved by LinkReferences, views are built by
 * LinkViews, the row is written by ShortCodes (alias, plan count, link.created); this class keeps
 * the rules of the link itself (expiry, password, options) and the transactions.
 */
@Injectable()
export class LinksService {
  private readonly logger = new Logger(LinksService.name);

  constructor(
    @InjectRepository(Link) private readonly links: Repository<Link>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly stats: StatsReader,
    private readonly cache: LinkCache,
    private readonly urls: PublicUrls,
    private readonly refs: LinkReferences,
    private readonly views: LinkViews,
    private readonly destinations: DestinationPolicy,
    private readonly outbox: WebhookOutbox,
    private readonly takedowns: Takedowns,
    private readonly codes: ShortCodes,
    private readonly budget: ListBudget,
    private readonly listQuery: LinkListQuery,
    private readonly audit: AuditLog,
    private readonly flags: LinkFlags,
  ) {}

  async create(auth: Principal, dto: CreateLinkDto): Promise<{ id: number; shorturl: string }> {
    const userId = auth.user.id;
    const custom = dto.custom ?? null;
    if (custom !== null) this.codes.checkAlias(auth, 'custom', custom);
    const expiresAt = expiryDate(dto.expiry);
    const options = optionColumns(auth, dto, this.plans);
    await this.destinations.checkAll(destinationsOf(dto));
    const passwordHash = dto.password ? await hashPassword(dto.password) : null;

    // One statement (the INSERT, with its link.created rows and its audit entry) needs no
    // transaction: a plain link costs one round trip. The
    // transaction stays where more rows are written (pixels, channel) or the plan's links count
    // is checked under the user's row lock (reserveLink).
    const write = async (em: EntityManager) => {
      const domain = await this.refs.domain(em, userId, dto.domain);
      const style = await this.refs.style(em, auth, dto.type ?? 'direct');
      const pixelIds = await this.refs.pixels(em, auth, dto.pixels);
      const campaignId = dto.campaign ? await this.refs.campaign(em, userId, dto.campaign) : null;
      const channelId = dto.channel ? await this.refs.channel(em, userId, dto.channel) : null;

      // the plan's links count (under the user's row lock, only when the plan caps it)
      await this.codes.reserve(em, auth);
      // the link, its link.created outbox rows and its audit entry in one statement: all or none
      const { id, alias } = await this.codes.insert(em, {
        kind: 'link',
        userId,
        domain,
        custom,
        field: 'custom',
        audit: { auth, action: 'link.create', type: 'link', changes: fieldsOf(dto) },
        values: {
          url: storedUrl(dto.url),
          title: dto.title ?? '',
          description: dto.description ?? '',
          ...style,
          passwordHash,
          expiresAt,
          campaignId,
          ...options,
        },
      });
      if (pixelIds.length)
        await em.insert(
          LinkPixel,
          pixelIds.map((pixelId) => ({ linkId: id, pixelId })),
        );
      if (channelId) await this.refs.assignChannel(em, userId, channelId, id);
      return { id, alias, domain };
    };
    const transaction = !!dto.pixels?.length || !!dto.channel || this.codes.counted(auth);
    const created = transaction ? await this.db.transaction(write) : await write(this.db.manager);

    // A visit before creation may have cached "no such alias" for a custom alias. A generated
    // one is new: 7+ random characters that nobody could have asked for, short of guessing one
    // in 3.5·10^12 within the 30 s a miss is cached (the miss budget makes that slow).
    if (custom !== null) await this.cache.forget({ aliases: [created.alias] });
    return {
      id: created.id,
      shorturl: this.urls.short(created.alias, created.domain?.domain),
    };
  }

  /**
   * `POST /api/url/bulk` (plan feature "multiple"): each item validated and created on its own,
   * in order, by the same path as `url/add` (plan count under the same lock, per item); a refused
   * item is reported in its place.
   */
  async bulk(auth: Principal, dto: BulkLinksDto): Promise<{ data: BulkItemView[] }> {
    this.plans.assertFeature(auth, 'multiple');
    const data: BulkItemView[] = [];
    for (const raw of dto.urls) {
      try {
        data.push(await this.create(auth, await validateBody(CreateLinkDto, raw)));
      } catch (err) {
        const { status, message } = mapError(err);
        if (status >= 500) this.logger.error(`bulk item failed: ${(err as Error).message}`);
        data.push({ error: 1, message });
      }
    }
    return { data };
  }

  /**
   * `GET /api/urls`: the total and the page's ids from LinkListQuery (within ListBudget: the
   * process's and the user's slots and the statement timeout), then the page's rows with their
   * domains, channels, folded totals and flags in one more statement (LinkListQuery.items), the
   * not-yet-folded clicks read beside it: all in the budget's transaction (a replica's snapshot
   * when one serves the list).
   */
  async list(auth: Principal, query: ListLinksDto): Promise<Paginated<LinkItemView>> {
    const { limit, page, offset } = pageRequest(query);
    const userId = auth.user.id;
    const { total, rows, totals } = await this.budget.run(
      userId,
      query.q ? 'The search' : 'The list',
      async (em) => {
        const { total, ids } = await this.listQuery.page(em, {
          userId,
          q: query.q,
          short: query.short,
          order: query.order ?? 'date',
          offset,
          limit,
        });
        // every id present before the pending read starts (it reads the links from `totals`);
        // the folded totals replace the zeros when the rows arrive
        const totals = new Map<number, LinkTotals>(
          ids.map((id) => [id, { clicks: 0, uniqueClicks: 0 }]),
        );
        if (!ids.length) return { total, rows: [], totals };
        const read = this.listQuery.items(em, userId, ids).then((rows) => {
          for (const r of rows)
            totals.set(r.id, {
              clicks: Number(r.clicks ?? 0),
              uniqueClicks: Number(r.uniques ?? 0),
            });
          return rows;
        });
        await this.stats.addPending(em, totals, read);
        return { total, rows: await read, totals };
      },
      // a read replica serves lists; a caller who wrote lately reads from the primary
      { replica: true },
    );
    return new Paginated('urls', this.views.rowItems(rows, totals), total, limit, page);
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
    const pixels = await this.db
      .getRepository(LinkPixel)
      .find({ where: { linkId: id }, order: { pixelId: 'ASC' } });
    const [details, data] = await Promise.all([
      this.views.details(
        link,
        pixels.map((p) => p.pixelId),
      ),
      this.stats.forLink(id),
    ]);
    return { id, details, data };
  }

  async update(
    auth: Principal,
    id: number,
    dto: UpdateLinkDto,
  ): Promise<{ id: number; short: string; shorturl: string }> {
    assertSendsAField(dto);
    const userId = auth.user.id;
    const link = await this.links.findOne({ where: { id, userId, kind: 'link' } });
    if (!link) throw new NotFoundError('Link');
    const newAlias = dto.custom !== undefined && dto.custom !== link.alias ? dto.custom : null;
    if (newAlias !== null) {
      this.codes.checkAlias(auth, 'custom', newAlias);
      // a takedown reserves the alias the code had: it cannot move away from it
      if (link.disabledAt) throw this.takedowns.frozen('custom');
    }
    const changes: Partial<Link> = optionColumns(auth, dto, this.plans);
    await this.destinations.checkAll(destinationsOf(dto));
    if (dto.expiry !== undefined) changes.expiresAt = expiryDate(dto.expiry);
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
        current = await this.refs.domain(em, userId, dto.domain);
        changes.domainId = current?.id ?? null;
      } else if (link.domainId) {
        current = await em.findOne(Domain, { where: { id: link.domainId } });
      }
      if (dto.type !== undefined) Object.assign(changes, await this.refs.style(em, auth, dto.type));
      const pixelIds =
        dto.pixels !== undefined ? await this.refs.pixels(em, auth, dto.pixels) : null;
      if (dto.campaign !== undefined)
        changes.campaignId = dto.campaign
          ? await this.refs.campaign(em, userId, dto.campaign)
          : null;
      const channelId =
        dto.channel !== undefined ? await this.refs.channel(em, userId, dto.channel) : null;
      if (newAlias !== null) {
        await this.codes.assertFree(em, 'custom', newAlias);
        changes.alias = newAlias;
      }

      if (Object.keys(changes).length) {
        await em.update(Link, { id }, changes).catch(async (err: unknown) => {
          throw await this.takedowns.updateRefusal(err, 'custom', newAlias ?? '', userId);
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
      if (channelId) await this.refs.assignChannel(em, userId, channelId, id);
      // a flag of a target the link no longer has goes with it
      const targetsSent = (
        [
          'url',
          'geotarget',
          'devicetarget',
          'languagetarget',
          'deeplink',
          'expirationredirect',
        ] as const
      ).some((f) => dto[f] !== undefined);
      if (targetsSent) {
        const after = { ...link, ...changes };
        await this.flags.dropReplaced(
          em,
          id,
          linkTargets({
            url: after.url,
            expiration_redirect: after.expirationRedirect,
            deep_link: after.deepLink,
            geo_targets: after.geoTargets,
            device_targets: after.deviceTargets,
            language_targets: after.languageTargets,
          }),
        );
      }
      await this.outbox.record(em, userId, 'link.updated', await linkEventData(em, this.urls, id));
      await this.audit.record(em, auth, {
        action: 'link.update',
        resource: { type: 'link', id },
        changes: fieldsOf(dto),
      });
      return current;
    });

    const alias = newAlias ?? link.alias;
    // bio pages showing the link leave it out once private
    const bios =
      dto.status !== undefined ? ((await this.cache.affectedBy('link', id)).aliases ?? []) : [];
    await this.cache.forget({
      aliases: [...(newAlias ? [link.alias, newAlias] : [link.alias]), ...bios],
    });
    return { id, short: alias, shorturl: this.urls.short(alias, domain?.domain) };
  }

  async remove(auth: Principal, id: number): Promise<void> {
    // bio pages showing the link leave it out once it is gone
    const bios = (await this.cache.affectedBy('link', id)).aliases ?? [];
    const alias = await this.db.transaction(async (em) => {
      const result = await em
        .createQueryBuilder()
        .delete()
        .from(Link)
        .where("id = :id AND user_id = :userId AND kind = 'link'", { id, userId: auth.user.id })
        .returning(['alias', 'domain_id'])
        .execute();
      const rows = result.raw as Array<{ alias: string; domain_id: number | null }>;
      if (!rows.length) throw new NotFoundError('Link');
      await em.delete(ChannelItem, { itemType: 'links', itemId: id });
      const { alias, domain_id } = rows[0];
      const domain = domain_id ? await em.findOne(Domain, { where: { id: domain_id } }) : null;
      await this.outbox.record(em, auth.user.id, 'link.deleted', {
        id,
        alias,
        shorturl: this.urls.short(alias, domain?.domain),
      });
      await this.audit.record(em, auth, { action: 'link.delete', resource: { type: 'link', id } });
      return alias;
    });
    await this.cache.forget({ aliases: [alias, ...bios] });
  }
}
