import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';

import {
  BadRequestError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
  PlanService,
  Principal,
  storedUrl,
} from '@app/common';
import { Overlay } from '@app/database';

import { DestinationPolicy } from '../destinations/destination-policy';
import { LinkCache } from '../link-cache/link-cache';
import { AddOverlayDto } from './dto/add-overlay.dto';
import {
  overlayDetailsView,
  OverlayDetailsView,
  overlayView,
  OverlayView,
} from './dto/overlay.view';
import { UpdateOverlayDto } from './dto/update-overlay.dto';

/** The columns a body changes (only the fields it sends). */
function columns(dto: AddOverlayDto | UpdateOverlayDto): Partial<Overlay> {
  const out: Partial<Overlay> = {};
  if (dto.type !== undefined) out.type = dto.type;
  if (dto.name !== undefined) out.name = dto.name;
  if (dto.message !== undefined) out.message = dto.message;
  if (dto.button !== undefined) out.buttonText = dto.button;
  if (dto.link !== undefined) out.buttonLink = dto.link ? storedUrl(dto.link) : '';
  if (dto.bgcolor !== undefined) out.bgColor = dto.bgcolor;
  if (dto.textcolor !== undefined) out.textColor = dto.textcolor;
  if (dto.buttoncolor !== undefined) out.buttonColor = dto.buttoncolor;
  if (dto.position !== undefined) out.position = dto.position;
  return out;
}

@Injectable()
export class OverlaysService {
  constructor(
    @InjectRepository(Overlay) private readonly overlays: Repository<Overlay>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly cache: LinkCache,
    private readonly destinations: DestinationPolicy,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<OverlayView>> {
    const qb = this.overlays
      .createQueryBuilder('o')
      .where('o.userId = :userId', { userId: auth.user.id });
    return paginate(qb, query, 'cta', overlayView);
  }

  async get(auth: Principal, id: number): Promise<{ data: OverlayDetailsView }> {
    const overlay = await this.overlays.findOneBy({ id, userId: auth.user.id });
    if (!overlay) throw new NotFoundError('Overlay');
    return { data: overlayDetailsView(overlay) };
  }

  /** 403 past the plan's `overlay` count (PlanService.createCounted: concurrent adds cannot pass it). */
  async add(auth: Principal, dto: AddOverlayDto): Promise<{ id: number }> {
    if (dto.link) await this.destinations.check('link', dto.link, { ownHostsAllowed: true });
    const saved = await this.plans.createCounted(auth, 'overlay', Overlay, columns(dto));
    return { id: saved.id };
  }

  async update(auth: Principal, id: number, dto: UpdateOverlayDto): Promise<void> {
    const changes = columns(dto);
    if (!Object.keys(changes).length)
      throw new BadRequestError(
        'Send at least one field to change: type, name, message, button, link, bgcolor, textcolor, buttoncolor, position',
      );
    if (dto.link) await this.destinations.check('link', dto.link, { ownHostsAllowed: true });
    const result = await this.overlays.update({ id, userId: auth.user.id }, changes);
    if (!result.affected) throw new NotFoundError('Overlay');
    // links showing this overlay carry its content in the redirector's cache
    await this.cache.forgetLinksUsing('overlay', id);
  }

  /** Links that used the overlay become direct links (on every replica at once). */
  async remove(auth: Principal, id: number): Promise<void> {
    const cached = await this.cache.affectedBy('overlay', id);
    await this.db.transaction(async (em) => {
      const rows: Array<{ id: number }> = await em.query(
        'SELECT id FROM overlays WHERE id = $1 AND user_id = $2 FOR UPDATE',
        [id, auth.user.id],
      );
      if (!rows.length) throw new NotFoundError('Overlay');
      await em.query(
        `UPDATE links SET type = CASE WHEN type = 'overlay' THEN 'direct' ELSE type END,
                          overlay_id = NULL, updated_at = now()
          WHERE overlay_id = $1`,
        [id],
      );
      await em.query('DELETE FROM overlays WHERE id = $1', [id]);
    });
    await this.cache.forget(cached);
  }
}
