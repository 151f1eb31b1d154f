import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  AuditLog,
  fieldsOf,
  NotFoundError,
  PageQueryDto,
  paginateOwn,
  Paginated,
  PlanService,
  Principal,
} from '@app/common';
import { Pixel } from '@app/database';

import { LinkCache } from '../link-cache/link-cache';
import { AddPixelDto } from './dto/add-pixel.dto';
import { pixelView, PixelView } from './dto/pixel.view';
import { UpdatePixelDto } from './dto/update-pixel.dto';

@Injectable()
export class PixelsService {
  constructor(
    @InjectRepository(Pixel) private readonly pixels: Repository<Pixel>,
    private readonly plans: PlanService,
    private readonly cache: LinkCache,
    private readonly audit: AuditLog,
  ) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<PixelView>> {
    return paginateOwn(this.pixels, auth.user.id, query, 'pixels', pixelView);
  }

  /** 403 past the plan's `pixels` count (PlanService.createCounted: concurrent adds cannot pass it). */
  async add(auth: Principal, dto: AddPixelDto): Promise<{ id: number }> {
    const { type, name, tag } = dto;
    const saved = await this.plans.createCounted(
      auth,
      'pixels',
      Pixel,
      { type, name, tag },
      this.audit.created(auth, 'pixel', fieldsOf(dto)),
    );
    return { id: saved.id };
  }

  async update(auth: Principal, id: number, dto: UpdatePixelDto): Promise<void> {
    const changes: Partial<Pixel> = { tag: dto.tag };
    if (dto.name !== undefined) changes.name = dto.name;
    const audited = {
      action: 'pixel.update',
      resource: { type: 'pixel', id },
      changes: fieldsOf(dto),
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.update(Pixel, { id, userId: auth.user.id }, changes);
      if (!result.affected) throw new NotFoundError('Pixel');
    });
    // links firing this pixel carry its tag in the redirector's cache
    await this.cache.forgetLinksUsing('pixel', id);
  }

  /** Links using the pixel stop firing it (link_pixels rows go with it). */
  async remove(auth: Principal, id: number): Promise<void> {
    const cached = await this.cache.affectedBy('pixel', id);
    const audited = { action: 'pixel.delete', resource: { type: 'pixel', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(Pixel, { id, userId: auth.user.id });
      if (!result.affected) throw new NotFoundError('Pixel');
    });
    await this.cache.forget(cached);
  }
}
