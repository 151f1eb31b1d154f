import { stat } from 'node:fs/promises';

import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource, EntityManager, In, QueryFailedError, Repository } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import {
  formatDateTime,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
  Principal,
  randomString,
  ServiceUnavailableError,
} from '@app/common';
import { AppConfig } from '@app/config';
import { Link, QrCode, QrType } from '@app/database';
import {
  assetPath,
  contrastRatio,
  DEFAULT_BACKGROUND,
  DEFAULT_FOREGROUND,
  formatRgb,
  LogoSourceError,
  MIN_QR_CONTRAST,
  parseLogoSource,
  parseRgb,
  Rgb,
} from '@app/qr';
import { DeleteQrImagesPayload, JOB, QrLook, QUEUE, RenderQrPayload } from '@app/queue';
import { LinkStatistics, StatsReader } from '@app/stats';

import { CreateQrDto } from './dto/create-qr.dto';
import { QrCreatedView, QrDetailsView, QrItemView } from './dto/qr-views';
import { UpdateQrDto } from './dto/update-qr.dto';
import { qrContent, QrData, validateQrData } from './qr-payload';
import { QrResolver } from './qr-resolver';

/** Length of a generated short code: 62^8 ≈ 2·10^14 codes, short enough to keep the QR small. */
const CODE_LENGTH = 8;
const ENQUEUE_TIMEOUT_MS = 3_000;

interface Look {
  background: string;
  foreground: string;
  logo: string | null;
}

@Injectable()
export class QrService {
  private readonly logger = new Logger(QrService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRepository(QrCode) private readonly qrs: Repository<QrCode>,
    @InjectRepository(Link) private readonly links: Repository<Link>,
    @InjectQueue(QUEUE.qr) private readonly queue: Queue,
    private readonly config: AppConfig,
    private readonly stats: StatsReader,
    private readonly resolver: QrResolver,
  ) {}

  // ---- views -----------------------------------------------------------------------------

  link(code: string): string {
    return `${this.config.publicUrl}/q/${code}`;
  }

  private item(qr: QrCode, code: string, scans: number): QrItemView {
    return {
      id: qr.id,
      link: this.link(code),
      scans,
      name: qr.name,
      date: formatDateTime(qr.createdAt) as string,
    };
  }

  private details(qr: QrCode, code: string, scans: number): QrDetailsView {
    return {
      ...this.item(qr, code, scans),
      type: qr.type,
      data: qr.data,
      background: qr.background,
      foreground: qr.foreground,
      logo: qr.logo,
      image: `${this.link(code)}.png`,
      status: qr.status,
      reason: qr.status === 'failed' ? qr.error : null,
    };
  }

  // ---- reads -----------------------------------------------------------------------------

  async list(auth: Principal, query: PageQueryDto): Promise<Paginated<QrItemView>> {
    const qb = this.qrs
      .createQueryBuilder('q')
      .where('q.userId = :userId', { userId: auth.user.id });
    const page = await paginate(qb, query, 'qrs', (qr) => qr);
    const linkIds = page.items.map((qr) => qr.linkId);
    const [links, totals] = await Promise.all([
      linkIds.length
        ? this.links.find({ where: { id: In(linkIds) }, select: { id: true, alias: true } })
        : [],
      this.stats.totals(linkIds),
    ]);
    const codes = new Map(links.map((l) => [l.id, l.alias]));
    const items = page.items.map((qr) =>
      this.item(qr, codes.get(qr.linkId) ?? '', totals.get(qr.linkId)?.clicks ?? 0),
    );
    return new Paginated('qrs', items, page.total, page.perpage, page.page);
  }

  async get(
    auth: Principal,
    id: number,
  ): Promise<{ details: QrDetailsView; data: LinkStatistics }> {
    const { qr, code } = await this.find(auth, id);
    const data = await this.stats.forLink(qr.linkId);
    return { details: this.details(qr, code, data.clicks), data };
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
    const look = await this.look(dto, {
      background: DEFAULT_BACKGROUND,
      foreground: DEFAULT_FOREGROUND,
      logo: null,
    });
    const name = dto.name ?? '';
    const { payload, target } = qrContent(dto.type, data);

    for (let attempt = 1; ; attempt++) {
      const code = randomString(CODE_LENGTH);
      try {
        // Both rows in one statement (one round trip, atomic): the short link, then its QR code.
        const [qr] = (await this.db.query(
          `WITH link AS (
             INSERT INTO links (user_id, kind, alias, url, title) VALUES ($1, 'qr', $2, $3, $4) RETURNING id
           )
           INSERT INTO qr_codes (user_id, link_id, name, type, data, background, foreground, logo)
           SELECT $1, link.id, $4, $5, $6::jsonb, $7, $8, $9 FROM link
           RETURNING id, link_id, render_version`,
          [
            auth.user.id,
            code,
            target ?? payload,
            name,
            dto.type,
            JSON.stringify(data),
            look.background,
            look.foreground,
            look.logo,
          ],
        )) as Array<{ id: number; link_id: number; render_version: number }>;
        try {
          await this.enqueueRender(qr.id, qr.render_version, { code, ...look });
        } catch (err) {
          // The client gets a 503: a rejected request leaves nothing behind.
          await this.links.delete({ id: qr.link_id }).catch(() => undefined);
          throw err;
        }
        return { id: qr.id, link: this.link(code) };
      } catch (err) {
        if (attempt < 5 && isAliasCollision(err)) continue;
        throw err;
      }
    }
  }

  async update(auth: Principal, id: number, dto: UpdateQrDto): Promise<void> {
    if (dto.type !== undefined) throw new InvalidFieldError('type', 'cannot be changed');
    const { before, after, code, rerender } = await this.db.transaction(async (m) => {
      const { qr, code } = await this.find(auth, id, m);
      const data = validateQrData(qr.type as QrType, dto.data);
      const look = await this.look(dto, qr);
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
      return { before, after, code, rerender };
    });
    await this.resolver.evict(code);
    if (!rerender) return;
    try {
      await this.enqueueRender(id, after.renderVersion as number, {
        code,
        background: after.background as string,
        foreground: after.foreground as string,
        logo: after.logo ?? null,
      });
    } catch (err) {
      await this.restore(before, after.renderVersion as number).catch((e: Error) =>
        this.logger.error(`qr ${id}: could not restore after a failed enqueue: ${e.message}`),
      );
      await this.resolver.evict(code);
      throw err;
    }
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
      return code;
    });
    await this.discardImages([code]);
  }

  /**
   * After QR rows are deleted (here, or with their user): drop the codes from the caches and
   * queue the deletion of their image files. The rows are gone, so the files are no longer
   * served; a failed enqueue only leaves files behind (logged).
   */
  async discardImages(codes: string[]): Promise<void> {
    for (const code of codes) {
      await this.resolver.evict(code);
      const payload: DeleteQrImagesPayload = { code };
      await this.withTimeout(
        this.queue.add(JOB.deleteQrImages, payload, { jobId: `qr-delete-${code}` }),
      ).catch((err: Error) =>
        this.logger.warn(
          `image deletion of ${code} not queued (${err.message}); its files stay on disk`,
        ),
      );
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

  private async enqueueRender(qrId: number, version: number, look: QrLook): Promise<void> {
    const payload: RenderQrPayload = { qrId, version, look };
    try {
      await this.withTimeout(
        this.queue.add(JOB.renderQr, payload, { jobId: `qr-${qrId}-v${version}` }),
      );
    } catch (err) {
      this.logger.error(`qr ${qrId}: render job not queued: ${(err as Error).message}`);
      throw new ServiceUnavailableError();
    }
  }

  private withTimeout<T>(p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('queue timeout')), ENQUEUE_TIMEOUT_MS);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  }

  /**
   * Validated colours and logo: each field sent replaces the current value ("" puts back the
   * default: white, black, no logo); fields not sent keep it.
   */
  private async look(dto: Partial<Record<keyof Look, string>>, current: Look): Promise<Look> {
    const color = (field: 'background' | 'foreground', fallback: string): Rgb => {
      const value = dto[field];
      if (value === undefined) return parseRgb(current[field]) as Rgb;
      if (value === '') return parseRgb(fallback) as Rgb;
      const rgb = parseRgb(value);
      if (!rgb)
        throw new InvalidFieldError(field, 'must be rgb(R,G,B) with R, G and B from 0 to 255');
      return rgb;
    };
    const background = color('background', DEFAULT_BACKGROUND);
    const foreground = color('foreground', DEFAULT_FOREGROUND);
    const ratio = contrastRatio(background, foreground);
    if (ratio < MIN_QR_CONTRAST) {
      throw new InvalidFieldError(
        'foreground',
        `too little contrast with the background (${ratio.toFixed(2)}:1; at least ${MIN_QR_CONTRAST}:1 is needed to scan)`,
      );
    }
    let logo = current.logo;
    if (dto.logo === '') logo = null;
    else if (dto.logo !== undefined) logo = await this.checkLogo(dto.logo);
    return { background: formatRgb(background), foreground: formatRgb(foreground), logo };
  }

  private async checkLogo(value: string): Promise<string> {
    try {
      const source = parseLogoSource(value, this.config.ALLOW_PRIVATE_FETCH);
      if (source.kind === 'asset') {
        const file = await stat(assetPath(this.config.STORAGE_DIR, source.name)).catch(() => null);
        if (!file?.isFile()) throw new LogoSourceError('no such file in the assets folder');
      }
      return value;
    } catch (err) {
      if (err instanceof LogoSourceError) throw new InvalidFieldError('logo', err.message);
      throw err;
    }
  }
}

function isAliasCollision(err: unknown): boolean {
  const driver =
    err instanceof QueryFailedError
      ? (err.driverError as { code?: string; constraint?: string })
      : undefined;
  return driver?.code === '23505' && driver.constraint === 'links_alias_uq';
}
