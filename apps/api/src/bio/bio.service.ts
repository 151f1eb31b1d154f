import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, Repository } from 'typeorm';

import {
  AuditLog,
  fieldsOf,
  assertSendsAField,
  ListBudget,
  NotFoundError,
  PageQueryDto,
  Paginated,
  countedPage,
  Principal,
  PublicUrls,
  storedUrl,
} from '@app/common';
import { BioLinkItem, BioPage, ChannelItem, Domain, Link } from '@app/database';
import { ALIAS_PATTERN, DestinationPolicy, ownDomain, ShortCodes } from '@app/links';
import { LinkStatistics, StatsReader } from '@app/stats';

import { LinkCache } from '../link-cache/link-cache';
import { Takedowns } from '../takedowns/takedowns';
import { SOCIAL_NETWORK_NAMES } from './bio-fields';
import { AddBioDto } from './dto/add-bio.dto';
import { BioLinkDto, BioSocialsDto } from './dto/bio-parts.dto';
import { BioSavedView, bioView, BioView } from './dto/bio.view';
import { UpdateBioDto } from './dto/update-bio.dto';

/**
 * Bio pages (link-in-bio). A page is a `links` row of kind `bio` (alias, branded domain, title,
 * description: one redirector, one statistics pipeline) and its `bio_pages` row (name, avatar,
 * theme, buttons, socials). Every change is followed by an invalidation of the page's cached
 * answer on every replica (LinkCache).
 */
@Injectable()
export class BioService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(Link) private readonly links: Repository<Link>,
    @InjectRepository(BioPage) private readonly pages: Repository<BioPage>,
    @InjectRepository(Domain) private readonly domains: Repository<Domain>,
    private readonly codes: ShortCodes,
    private readonly stats: StatsReader,
    private readonly cache: LinkCache,
    private readonly urls: PublicUrls,
    private readonly destinations: DestinationPolicy,
    private readonly takedowns: Takedowns,
    private readonly audit: AuditLog,
    private readonly budget: ListBudget,
  ) {}

  // ---- reads -----------------------------------------------------------------------------

  /**
   * `GET /api/bio`: like the links list, the total is the maintained count
   * (`link_counts` kind `bio`) and the page's ids an index-only scan of `links_user_idx`
   * (user, kind, id), in one statement; then only the page's rows are read.
   */
  async list(auth: Principal, query: PageQueryDto): Promise<Paginated<BioView>> {
    const { rows, total, limit, page } = await countedPage(
      this.budget,
      this.links,
      'bio',
      auth.user.id,
      query,
      { rowKind: 'bio', light: true },
    );
    return new Paginated('bios', await this.views(rows), total, limit, page);
  }

  async get(
    auth: Principal,
    id: number,
  ): Promise<{ id: number; details: BioView; data: LinkStatistics }> {
    const link = await this.links.findOne({ where: { id, userId: auth.user.id, kind: 'bio' } });
    const [details] = link ? await this.views([link]) : [];
    if (!details) throw new NotFoundError('Bio page');
    return { id, details, data: await this.stats.forLink(id) };
  }

  /** The views of `rows` (bio links rows), in order; rows without their page are left out. */
  private async views(rows: Link[]): Promise<BioView[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const domainIds = [...new Set(rows.map((r) => r.domainId).filter((d) => d !== null))];
    const [pages, domains, totals] = await Promise.all([
      this.pages.findBy({ linkId: In(ids) }),
      domainIds.length ? this.domains.findBy({ id: In(domainIds) }) : Promise.resolve([]),
      this.stats.totals(ids),
    ]);
    const pageOf = new Map(pages.map((p) => [p.linkId, p]));
    const domainOf = new Map(domains.map((d) => [d.id, d.domain]));
    const out: BioView[] = [];
    for (const r of rows) {
      const page = pageOf.get(r.id);
      if (!page) continue;
      const domain = r.domainId ? (domainOf.get(r.domainId) ?? null) : null;
      out.push(bioView(r, page, this.urls.short(r.alias, domain), domain, totals.get(r.id)));
    }
    return out;
  }

  // ---- writes ----------------------------------------------------------------------------

  async create(auth: Principal, dto: AddBioDto): Promise<BioSavedView> {
    const userId = auth.user.id;
    if (dto.alias !== undefined) this.codes.checkAlias(auth, 'alias', dto.alias);
    await this.checkDestinations(dto);
    const socials = this.socials(dto.socials);
    const buttons = await this.buttons(userId, dto.links);

    const created = await this.db.transaction(async (em) => {
      const domain = await ownDomain(em, userId, dto.domain);
      // a bio page counts against the plan's links (under the user's row lock when capped)
      await this.codes.reserve(em, auth);
      const { id, alias } = await this.codes.insert(em, {
        kind: 'bio',
        userId,
        domain,
        custom: dto.alias ?? null,
        field: 'alias',
        values: { url: '', title: dto.title ?? '', description: dto.description ?? '' },
        audit: { auth, action: 'bio.create', type: 'bio', changes: fieldsOf(dto) },
      });
      await em.insert(BioPage, {
        linkId: id,
        userId,
        name: dto.name,
        avatar: dto.avatar ? storedUrl(dto.avatar) : '',
        theme: dto.theme ?? 'light',
        links: buttons,
        socials,
      });
      return { id, alias, domain };
    });
    // a visit before creation may have cached "no such alias"
    await this.cache.forget({ aliases: [created.alias] });
    return { id: created.id, url: this.urls.short(created.alias, created.domain?.domain) };
  }

  async update(auth: Principal, id: number, dto: UpdateBioDto): Promise<BioSavedView> {
    assertSendsAField(dto);
    const userId = auth.user.id;
    const link = await this.links.findOne({ where: { id, userId, kind: 'bio' } });
    if (!link) throw new NotFoundError('Bio page');
    const newAlias = dto.alias !== undefined && dto.alias !== link.alias ? dto.alias : null;
    if (newAlias !== null) {
      this.codes.checkAlias(auth, 'alias', newAlias);
      // a takedown reserves the alias the page had: it cannot move away from it
      if (link.disabledAt) throw this.takedowns.frozen('alias');
    }
    await this.checkDestinations(dto);
    const socials = dto.socials !== undefined ? this.socials(dto.socials) : undefined;
    const buttons = dto.links !== undefined ? await this.buttons(userId, dto.links) : undefined;

    const linkChanges: Partial<Link> = {};
    if (dto.title !== undefined) linkChanges.title = dto.title;
    if (dto.description !== undefined) linkChanges.description = dto.description;
    if (newAlias !== null) linkChanges.alias = newAlias;
    const pageChanges: Partial<BioPage> = {};
    if (dto.name !== undefined) pageChanges.name = dto.name;
    if (dto.avatar !== undefined) pageChanges.avatar = dto.avatar ? storedUrl(dto.avatar) : '';
    if (dto.theme !== undefined) pageChanges.theme = dto.theme;
    if (buttons !== undefined) pageChanges.links = buttons;
    if (socials !== undefined) pageChanges.socials = socials;

    const domain = await this.db.transaction(async (em) => {
      const locked = await em.query(
        `SELECT id FROM links WHERE id = $1 AND user_id = $2 AND kind = 'bio' FOR UPDATE`,
        [id, userId],
      );
      if (!locked.length) throw new NotFoundError('Bio page');
      let current: Domain | null = null;
      if (dto.domain !== undefined) {
        current = await ownDomain(em, userId, dto.domain);
        linkChanges.domainId = current?.id ?? null;
      } else if (link.domainId) {
        current = await em.findOne(Domain, { where: { id: link.domainId } });
      }
      if (newAlias !== null) await this.codes.assertFree(em, 'alias', newAlias);
      if (Object.keys(linkChanges).length)
        await em.update(Link, { id }, linkChanges).catch(async (err: unknown) => {
          throw await this.takedowns.updateRefusal(err, 'alias', newAlias ?? '', userId);
        });
      if (Object.keys(pageChanges).length) {
        pageChanges.updatedAt = new Date();
        await em.update(BioPage, { linkId: id }, pageChanges);
      }
      await this.audit.record(em, auth, {
        action: 'bio.update',
        resource: { type: 'bio', id },
        changes: fieldsOf(dto),
      });
      return current;
    });

    const alias = newAlias ?? link.alias;
    await this.cache.forget({ aliases: newAlias ? [link.alias, newAlias] : [link.alias] });
    return { id, url: this.urls.short(alias, domain?.domain) };
  }

  /** The page stops answering on every replica; its channel assignments go with it. */
  async remove(auth: Principal, id: number): Promise<void> {
    const alias = await this.db.transaction(async (em) => {
      const result = await em
        .createQueryBuilder()
        .delete()
        .from(Link)
        .where("id = :id AND user_id = :userId AND kind = 'bio'", { id, userId: auth.user.id })
        .returning(['alias'])
        .execute();
      const rows = result.raw as Array<{ alias: string }>;
      if (!rows.length) throw new NotFoundError('Bio page');
      await em.delete(ChannelItem, { itemType: 'bio', itemId: id, userId: auth.user.id });
      await this.audit.record(em, auth, { action: 'bio.delete', resource: { type: 'bio', id } });
      return rows[0].alias; // bio_pages row cascades
    });
    await this.cache.forget({ aliases: [alias] });
  }

  // ---- rules -----------------------------------------------------------------------------

  /**
   * Every URL of the body (avatar, socials, buttons) in one pass, as links check theirs: a blocked
   * one is refused (400 naming `avatar`, `socials.<network>` or `links[i].url`). The service's own
   * hosts are allowed (a button to one of the caller's short links is the point).
   */
  private async checkDestinations(dto: AddBioDto | UpdateBioDto): Promise<void> {
    const urls: Array<[string, string | null | undefined]> = [['avatar', dto.avatar]];
    for (const network of SOCIAL_NETWORK_NAMES) {
      const url = dto.socials?.[network];
      if (typeof url === 'string') urls.push([`socials.${network}`, url]);
    }
    for (const [i, item] of (dto.links ?? []).entries()) urls.push([`links[${i}].url`, item.url]);
    await this.destinations.checkAll(urls, { ownHostsAllowed: true });
  }

  /** The socials as stored: known networks only (the DTO refused others; checkDestinations ran). */
  private socials(dto: BioSocialsDto | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    if (!dto) return out;
    for (const network of SOCIAL_NETWORK_NAMES) {
      const url = dto[network];
      if (typeof url === 'string') out[network] = storedUrl(url);
    }
    return out;
  }

  /**
   * The buttons as stored (checkDestinations ran). A button to one of the caller's own short links (on PUBLIC_URL or the link's branded domain) records that
   * link's id, so the page leaves it out while the link is private or once it is deleted.
   */
  private async buttons(userId: number, links: BioLinkDto[] | undefined): Promise<BioLinkItem[]> {
    const out: BioLinkItem[] = [];
    for (const item of links ?? []) {
      const stored: BioLinkItem = { title: item.title, url: storedUrl(item.url) };
      const own = await this.ownLink(userId, item.url);
      if (own !== null) stored.link = own;
      out.push(stored);
    }
    return out;
  }

  /** The id of the caller's short link that `url` is (`<its host>/<alias>`), else null. */
  private async ownLink(userId: number, url: string): Promise<number | null> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const alias = parsed.pathname.slice(1);
    if (!ALIAS_PATTERN.test(alias)) return null;
    const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
    let domainId: number | null = null;
    if (host !== this.urls.host) {
      const domain = await this.cache.resolveHost(host);
      if (!domain) return null;
      domainId = domain.id;
    }
    const rows: Array<{ id: number }> = await this.db.query(
      `SELECT id FROM links WHERE alias = $1 AND user_id = $2 AND kind = 'link'
          AND domain_id IS NOT DISTINCT FROM $3`,
      [alias, userId, domainId],
    );
    return rows.length ? rows[0].id : null;
  }
}
