import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import {
  AuditLog,
  fieldsOf,
  formatDateTime,
  InvalidFieldError,
  ListBudget,
  NotFoundError,
  PageQueryDto,
  countedPage,
  Paginated,
  Principal,
  PublicUrls,
} from '@app/common';
import { Link, QrCode, QrType } from '@app/database';
import { DestinationPolicy, ShortCodes } from '@app/links';
import { LinkStatistics, StatsReader } from '@app/stats';
import { WebhookOutbox } from '@app/webhooks';

import { CreateQrDto } from './dto/create-qr.dto';
import {
  QrCreatedView,
  qrDetailsView,
  QrDetailsView,
  qrItemView,
  QrItemView,
} from './dto/qr-views';
import { UpdateQrDto } from './dto/update-qr.dto';
import { qrContent, QrData, validateQrData } from './qr-payload';
import { DEFAULT_LOOK, QrLook } from './qr-look';
import { QrRenderQueue } from './qr-render-queue';
import { QrResolver } from './qr-resolver';

/**
 * The QR code's row, written by the statement that inserts its short link (ShortCodes.insert: the
 * CTE `created`); `$p`… are user, name, type, data and the look.
 */
const qrRowSql = (p: number) =>
  `INSERT INTO qr_codes (user_id, link_id, name, type, data, background, foreground, logo)
   SELECT $${p}, created.id, $${p + 1}, $${p + 2}, $${p + 3}::jsonb, $${p + 4}, $${p + 5}, $${p + 6}
     FROM created
   RETURNING link_id AS id, id AS qr_id, render_version`;

@Injectable()
export class QrService {
  private readonly logger = new Logger(QrService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(QrCode) private readonly qrs: Repository<QrCode>,
    @InjectRepository(Link) private readonly links: Repository<Link>,
    private readonly stats: StatsReader,
    private readonly urls: PublicUrls,
    private readonly looks: QrLook,
    private readonly jobs: QrRenderQueue,
    private readonly resolver: QrResolver,
    private readonly destinations: DestinationPolicy,
    private readonly codes: ShortCodes,
    private readonly outbox: WebhookOutbox,
    private readonly budget: ListBudget,
    private readonly audit: AuditLog,
  ) {}

  // ---- reads -----------------------------------------------------------------------------

  /**
   * `GET /api/qr`: like the links list (ListBudget), the total is the maintained count
   * (`link_counts` kind `qrcode`) and the page's ids an index-only scan of `qr_codes_user_idx`,
   * in one statement; then only the page's rows are read.
   */
  async list(auth: Principal, query: PageQueryDto): Promise<Paginated<QrItemView>> {
    const {
      rows: qrs,
      total,
      limit,
      page,
    } = await countedPage(this.budget, this.qrs, 'qrcode', auth.user.id, query);
    const linkIds = qrs.map((qr) => qr.linkId);
    const [links, totals] = await Promise.all([
      linkIds.length
        ? this.links.find({ where: { id: In(linkIds) }, select: { id: true, alias: true } })
        : [],
      this.stats.totals(linkIds),
    ]);
    const codes = new Map(links.map((l) => [l.id, l.alias]));
    const items = qrs.map((qr) =>
      qrItemView(qr, codes.get(qr.linkId) ?? '', totals.get(qr.linkId)?.clicks ?? 0, this.urls),
    );
    return new Paginated('qrs', items, total, limit, page);
  }

  async get(
    auth: Principal,
    id: number,
  ): Promise<{ details: QrDetailsView; data: LinkStatistics }> {
    const { qr, code } = await this.find(auth, id);
    const data = await this.stats.forLink(qr.linkId);
    return { details: qrDetailsView(qr, code, data.clicks, this.urls), data };
  }

  private async find(
    auth: Principal,
    id: number,
    manager?: EntityManager,
  ): Promise<{ qr: QrCode; code: string }> {
    const repo = manager ? manager.getRepository(QrCode) : this.qrs;
    const qr = await repo.findOne({
      where: { id, userId: auth.user.id },
      lock: manager ? { mode: 'pessimistic_write' } : undefined,
    });
    if (!qr) throw new NotFoundError('QR code');
    const link = await (manager ? manager.getRepository(Link) : this.links).findOne({
      where: { id: qr.linkId, userId: auth.user.id },
      select: { id: true, alias: true },
    });
    if (!link) throw new NotFoundError('QR code');
    return { qr, code: link.alias };
  }

  // ---- writes ----------------------------------------------------------------------------

  async create(auth: Principal, dto: CreateQrDto): Promise<QrCreatedView> {
    const data = validateQrData(dto.type, dto.data);
    await this.checkDestination(dto.type, data);
    const look = await this.looks.resolve(dto, DEFAULT_LOOK);
    const name = dto.name ?? '';
    const { payload, target } = qrContent(dto.type, data);

    // One statement writes the short link and its QR code (one round trip, atomic); a link code
    // counts against the plan's links (checked first, under the user's lock); the qr.created
    // event shares the transaction.
    const userId = auth.user.id;
    const { qr, code } = await this.db.transaction(async (em) => {
      if (dto.type === 'link') await this.codes.reserve(em, auth);
      const { alias, row } = await this.codes.insert(
        em,
        {
          kind: 'qr',
          userId,
          domain: null,
          custom: null,
          field: 'custom',
          values: { url: target ?? payload, title: name },
        },
        {
          sql: qrRowSql,
          params: [
            userId,
            name,
            dto.type,
            JSON.stringify(data),
            look.background,
            look.foreground,
            look.logo,
          ],
        },
      );
      const qr = row as { id: number; qr_id: number; render_version: number };
      await this.outbox.record(em, userId, 'qr.created', {
        id: qr.qr_id,
        name,
        type: dto.type,
        link: this.urls.qr(alias),
        date: formatDateTime(new Date()),
      });
      await this.audit.record(em, auth, {
        action: 'qr.create',
        resource: { type: 'qr', id: qr.qr_id },
        changes: fieldsOf(dto),
      });
      return { qr, code: alias };
    });
    try {
      await this.jobs.render(userId, qr.qr_id, qr.render_version, { code, ...look });
    } catch (err) {
      // The client gets a 503: a rejected request leaves nothing behind (its audit entry neither).
      await this.links.delete({ id: qr.id }).catch(() => undefined);
      await this.audit
        .withdraw(auth, { action: 'qr.create', resource: { type: 'qr', id: qr.qr_id } })
        .catch(() => undefined);
      throw err;
    }
    // no cache invalidation: a random 8-character code cannot have been asked for (and a
    // "missing" answer cached) before now
    return { id: qr.qr_id, link: this.urls.qr(code) };
  }

  async update(auth: Principal, id: number, dto: UpdateQrDto): Promise<void> {
    if (dto.type !== undefined) throw new InvalidFieldError('type', 'cannot be changed');
    const { before, after, code, rerender } = await this.db.transaction(async (m) => {
      const { qr, code } = await this.find(auth, id, m);
      const data = validateQrData(qr.type as QrType, dto.data);
      await this.checkDestination(qr.type as QrType, data);
      const look = await this.looks.resolve(dto, qr);
      // The image encodes the short link, not the content: only a change of look needs a new
      // image, or a retry after a failed rendering.
      const rerender =
        dto.background !== undefined ||
        dto.foreground !== undefined ||
        dto.logo !== undefined ||
        qr.status === 'failed';
      const before = { ...qr };
      const after: Partial<QrCode> = { data, ...look, name: dto.name ?? qr.name };
      if (rerender)
        Object.assign(after, {
          renderVersion: qr.renderVersion + 1,
          status: 'pending',
          error: null,
        });
      await m.getRepository(QrCode).update({ id: qr.id }, after as QueryDeepPartialEntity<QrCode>);
      const { payload, target } = qrContent(qr.type as QrType, data);
      await m
        .getRepository(Link)
        .update({ id: qr.linkId }, { url: target ?? payload, title: after.name });
      await this.audit.record(m, auth, {
        action: 'qr.update',
        resource: { type: 'qr', id: qr.id },
        changes: fieldsOf(dto),
      });
      return { before, after, code, rerender };
    });
    await this.resolver.evict(code);
    if (!rerender) return;
    try {
      await this.jobs.render(auth.user.id, id, after.renderVersion as number, {
        code,
        background: after.background as string,
        foreground: after.foreground as string,
        logo: after.logo ?? null,
      });
    } catch (err) {
      await this.restore(before, after.renderVersion as number).catch((e: Error) =>
        this.logger.error(`qr ${id}: could not restore after a failed enqueue: ${e.message}`),
      );
      await this.audit
        .withdraw(auth, { action: 'qr.update', resource: { type: 'qr', id } })
        .catch(() => undefined);
      await this.resolver.evict(code);
      throw err;
    }
  }

  /** A link code's URL may not be blocked (a short link of ours is fine: it is printed, not chained). */
  private async checkDestination(type: QrType, data: QrData): Promise<void> {
    if (type === 'link')
      await this.destinations.check('data', String(data), { ownHostsAllowed: true });
  }

  /**
   * Puts back what `update` changed, unless something newer has landed since. The bumped
   * render_version stays: versions are never reused, so a job id `qr-<id>-v<n>` names one look.
   */
  private async restore(before: QrCode, version: number): Promise<void> {
    await this.db.transaction(async (m) => {
      const res = await m.getRepository(QrCode).update(
        { id: before.id, renderVersion: version },
        {
          data: before.data as QueryDeepPartialEntity<unknown>,
          name: before.name,
          background: before.background,
          foreground: before.foreground,
          logo: before.logo,
          status: before.status,
          error: before.error,
        },
      );
      if (!res.affected) return;
      const { payload, target } = qrContent(before.type as QrType, before.data as QrData);
      await m
        .getRepository(Link)
        .update({ id: before.linkId }, { url: target ?? payload, title: before.name });
    });
  }

  async remove(auth: Principal, id: number): Promise<void> {
    const code = await this.db.transaction(async (m) => {
      const { qr, code } = await this.find(auth, id, m);
      await m.query(
        `DELETE FROM channel_items WHERE item_type = 'qr' AND item_id = $1 AND user_id = $2`,
        [qr.id, auth.user.id],
      );
      await m.getRepository(Link).delete({ id: qr.linkId, userId: auth.user.id }); // qr_codes row cascades
      await this.audit.record(m, auth, {
        action: 'qr.delete',
        resource: { type: 'qr', id: qr.id },
      });
      return code;
    });
    await this.jobs.discard([code]);
  }
}
