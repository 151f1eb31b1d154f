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
import { SplashPage } from '@app/database';

import { DestinationPolicy } from '../destinations/destination-policy';
import { LinkCache } from '../link-cache/link-cache';
import { AddSplashDto } from './dto/add-splash.dto';
import { splashDetailsView, SplashDetailsView, splashView, SplashView } from './dto/splash.view';
import { UpdateSplashDto } from './dto/update-splash.dto';

/** The columns a body changes (only the fields it sends). */
function columns(dto: AddSplashDto | UpdateSplashDto): Partial<SplashPage> {
  const out: Partial<SplashPage> = {};
  if (dto.name !== undefined) out.name = dto.name;
  if (dto.title !== undefined) out.title = dto.title;
  if (dto.message !== undefined) out.message = dto.message;
  if (dto.image !== undefined) out.imageUrl = dto.image ? storedUrl(dto.image) : '';
  if (dto.link !== undefined) out.link = dto.link ? storedUrl(dto.link) : '';
  if (dto.countdown !== undefined) out.countdown = dto.countdown;
  if (dto.button !== undefined) out.buttonText = dto.button;
  return out;
}

@Injectable()
export class SplashService {
  constructor(
    @InjectRepository(SplashPage) private readonly pages: Repository<SplashPage>,
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly cache: LinkCache,
    private readonly destinations: DestinationPolicy,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<SplashView>> {
    const qb = this.pages
      .createQueryBuilder('s')
      .where('s.userId = :userId', { userId: auth.user.id });
    return paginate(qb, query, 'splash', splashView);
  }

  async get(auth: Principal, id: number): Promise<{ data: SplashDetailsView }> {
    const splash = await this.pages.findOneBy({ id, userId: auth.user.id });
    if (!splash) throw new NotFoundError('Splash page');
    return { data: splashDetailsView(splash) };
  }

  /** 403 past the plan's `splash` count (PlanService.createCounted: concurrent adds cannot pass it). */
  async add(auth: Principal, dto: AddSplashDto): Promise<{ id: number }> {
    await this.checkUrls(dto);
    const saved = await this.plans.createCounted(auth, 'splash', SplashPage, columns(dto));
    return { id: saved.id };
  }

  async update(auth: Principal, id: number, dto: UpdateSplashDto): Promise<void> {
    const changes = columns(dto);
    if (!Object.keys(changes).length)
      throw new BadRequestError(
        'Send at least one field to change: name, title, message, image, link, countdown, button',
      );
    await this.checkUrls(dto);
    const result = await this.pages.update({ id, userId: auth.user.id }, changes);
    if (!result.affected) throw new NotFoundError('Splash page');
    // links showing this page carry its content in the redirector's cache
    await this.cache.forgetLinksUsing('splash', id);
  }

  /** Links that used the page become direct links (on every replica at once). */
  async remove(auth: Principal, id: number): Promise<void> {
    const cached = await this.cache.affectedBy('splash', id);
    await this.db.transaction(async (em) => {
      const rows: Array<{ id: number }> = await em.query(
        'SELECT id FROM splash_pages WHERE id = $1 AND user_id = $2 FOR UPDATE',
        [id, auth.user.id],
      );
      if (!rows.length) throw new NotFoundError('Splash page');
      await em.query(
        `UPDATE links SET type = CASE WHEN type = 'splash' THEN 'direct' ELSE type END,
                          splash_id = NULL, updated_at = now()
          WHERE splash_id = $1`,
        [id],
      );
      await em.query('DELETE FROM splash_pages WHERE id = $1', [id]);
    });
    await this.cache.forget(cached);
  }

  /** The image and link may not be blocked destinations. */
  private async checkUrls(dto: AddSplashDto | UpdateSplashDto): Promise<void> {
    if (dto.image) await this.destinations.check('image', dto.image, { ownHostsAllowed: true });
    if (dto.link) await this.destinations.check('link', dto.link, { ownHostsAllowed: true });
  }
}
