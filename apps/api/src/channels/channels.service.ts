import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import {
  assertSendsAField,
  AuditLog,
  fieldsOf,
  formatDay,
  NotFoundError,
  PageQueryDto,
  pageRequest,
  ListBudget,
  paginateCounted,
  Paginated,
  Principal,
  PublicUrls,
} from '@app/common';
import {
  Channel,
  ChannelItem,
  ChannelItemType,
  Domain,
  isForeignKeyViolation,
  Link,
  QrCode,
} from '@app/database';

import { AddChannelDto } from './dto/add-channel.dto';
import { ChannelItemView } from './dto/channel-item.view';
import { channelView, ChannelView } from './dto/channel.view';
import { UpdateChannelDto } from './dto/update-channel.dto';

/** One row of the channel item query. */
interface ItemRow {
  id: number;
  type: ChannelItemType;
  itemId: number;
  assignedAt: Date;
  linkAlias: string | null;
  linkTitle: string | null;
  linkUrl: string | null;
  linkDomain: string | null;
  qrName: string | null;
  qrAlias: string | null;
}

@Injectable()
export class ChannelsService {
  constructor(
    @InjectRepository(Channel) private readonly channels: Repository<Channel>,
    @InjectRepository(ChannelItem) private readonly channelItems: Repository<ChannelItem>,
    @InjectRepository(Link) private readonly links: Repository<Link>,
    @InjectRepository(QrCode) private readonly qrCodes: Repository<QrCode>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly urls: PublicUrls,
    private readonly audit: AuditLog,
    private readonly budget: ListBudget,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<ChannelView>> {
    return paginateCounted(
      this.budget,
      this.channels,
      'channel',
      auth.user.id,
      query,
      'channels',
      channelView,
    );
  }

  /**
   * The channel's items, newest assignment first (ListBudget, light): the total is the channel's
   * maintained count (`channel_item_counts`) and the page's ids an index scan of
   * `channel_items_channel_idx` (channel, id) to the page's offset, in one statement; then only
   * the page's items are read with their link, bio page or QR code. An item leaves the channel
   * with its link, bio page or QR code (triggers: migration ChannelItemCounts); the joins still
   * leave out one whose target went in between.
   */
  async items(
    auth: Principal,
    id: number,
    query: PageQueryDto,
  ): Promise<Paginated<ChannelItemView>> {
    await this.assertChannel(auth, id);
    const { limit, page, offset } = pageRequest(query);
    const userId = auth.user.id;
    const { total, ids } = await this.budget.run(
      userId,
      'The list',
      async (em) => {
        const [row]: Array<{ total: number; ids: number[] }> = await em.query(
          `SELECT (SELECT COALESCE(sum(n), 0) FROM channel_item_counts WHERE channel_id = $1)::int AS total,
                ARRAY(SELECT id FROM channel_items WHERE channel_id = $1 AND user_id = $2
                       ORDER BY id DESC OFFSET $3 LIMIT $4) AS ids`,
          [id, userId, offset, limit],
        );
        return row;
      },
      { light: true },
    );
    const rows: ItemRow[] = !ids.length
      ? []
      : await this.channelItems
          .createQueryBuilder('ci')
          .leftJoin(
            Link,
            'l',
            // (one line: TypeORM only maps `alias.property` names followed by a space, `=`, `)` or `,`)
            `ci.itemType IN ('links', 'bio') AND l.id = ci.itemId AND l.userId = ci.userId AND ` +
              `l.kind = (CASE WHEN ci.itemType = 'links' THEN 'link' ELSE 'bio' END)`,
          )
          .leftJoin(Domain, 'd', 'd.id = l.domainId')
          .leftJoin(QrCode, 'q', `ci.itemType = 'qr' AND q.id = ci.itemId AND q.userId = ci.userId`)
          .leftJoin(Link, 'ql', 'ql.id = q.linkId')
          .where('ci.id IN (:...ids) AND ci.userId = :userId', { ids, userId })
          .andWhere('(l.id IS NOT NULL OR ql.id IS NOT NULL)')
          .select('ci.id', 'id')
          .addSelect('ci.itemType', 'type')
          .addSelect('ci.itemId', 'itemId')
          .addSelect('ci.createdAt', 'assignedAt')
          .addSelect('l.alias', 'linkAlias')
          .addSelect('l.title', 'linkTitle')
          .addSelect('l.url', 'linkUrl')
          .addSelect('d.domain', 'linkDomain')
          .addSelect('q.name', 'qrName')
          .addSelect('ql.alias', 'qrAlias')
          .orderBy('ci.id', 'DESC')
          .getRawMany();
    return new Paginated(
      'items',
      rows.map((r) => this.itemView(r)),
      total,
      limit,
      page,
    );
  }

  async add(auth: Principal, dto: AddChannelDto): Promise<ChannelView> {
    const audited = {
      action: 'channel.create',
      resource: { type: 'channel', id: (c: Channel) => c.id },
      changes: fieldsOf(dto),
    };
    const channel = await this.audit.change(auth, audited, (em) =>
      em.save(
        this.channels.create({
          userId: auth.user.id,
          name: dto.name,
          description: dto.description ?? '',
          color: dto.color ?? '#000000',
          starred: dto.starred ?? false,
        }),
      ),
    );
    return channelView(channel);
  }

  async update(auth: Principal, id: number, dto: UpdateChannelDto): Promise<void> {
    assertSendsAField(dto);
    const changes: Partial<Channel> = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.description !== undefined) changes.description = dto.description;
    if (dto.color !== undefined) changes.color = dto.color;
    if (dto.starred !== undefined) changes.starred = dto.starred;
    const audited = {
      action: 'channel.update',
      resource: { type: 'channel', id },
      changes: fieldsOf(dto),
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.update(Channel, { id, userId: auth.user.id }, changes);
      if (!result.affected) throw new NotFoundError('Channel');
    });
  }

  /** The items themselves stay; their assignments go with the channel (ON DELETE CASCADE). */
  async remove(auth: Principal, id: number): Promise<void> {
    const audited = { action: 'channel.delete', resource: { type: 'channel', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(Channel, { id, userId: auth.user.id });
      if (!result.affected) throw new NotFoundError('Channel');
    });
  }

  /**
   * Assigning an item that is already in the channel changes nothing and succeeds (no audit
   * entry then); a new assignment is `channel.assign` of the channel, field `items`.
   */
  async assign(
    auth: Principal,
    channelId: number,
    type: ChannelItemType,
    itemId: number,
  ): Promise<void> {
    await this.assertChannel(auth, channelId);
    const userId = auth.user.id;
    if (type === 'qr') {
      if (!(await this.qrCodes.existsBy({ id: itemId, userId })))
        throw new NotFoundError('QR code');
    } else if (
      !(await this.links.existsBy({ id: itemId, userId, kind: type === 'links' ? 'link' : 'bio' }))
    ) {
      throw new NotFoundError(type === 'links' ? 'Link' : 'Bio page');
    }
    const audited = {
      action: 'channel.assign',
      resource: { type: 'channel', id: channelId },
      changes: ['items'],
    };
    try {
      await this.db.transaction(async (em) => {
        const result = await em
          .createQueryBuilder()
          .insert()
          .into(ChannelItem)
          .values({ channelId, userId, itemType: type, itemId })
          .orIgnore()
          .returning('id')
          .execute();
        if ((result.raw as unknown[]).length) await this.audit.record(em, auth, audited);
      });
    } catch (err) {
      // The channel was deleted between the check and the insert.
      if (isForeignKeyViolation(err)) throw new NotFoundError('Channel');
      throw err;
    }
  }

  private async assertChannel(auth: Principal, id: number): Promise<void> {
    if (!(await this.channels.existsBy({ id, userId: auth.user.id })))
      throw new NotFoundError('Channel');
  }

  private itemView(r: ItemRow): ChannelItemView {
    const date = formatDay(new Date(r.assignedAt));
    if (r.type === 'qr') {
      const code = r.qrAlias as string;
      return {
        type: r.type,
        id: r.itemId,
        title: r.qrName || code,
        preview: this.urls.qrImage(code),
        link: this.urls.qr(code),
        date,
      };
    }
    const link = this.urls.short(r.linkAlias as string, r.linkDomain);
    return {
      type: r.type,
      id: r.itemId,
      title: r.linkTitle || (r.linkAlias as string),
      preview: r.type === 'links' ? (r.linkUrl as string) : link,
      link,
      date,
    };
  }
}
