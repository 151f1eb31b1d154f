import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { PageQueryDto, paginate, Paginated, Principal } from '@app/common';
import { Overlay } from '@app/database';

import { overlayView, OverlayView } from './dto/overlay.view';

@Injectable()
export class OverlaysService {
  constructor(@InjectRepository(Overlay) private readonly overlays: Repository<Overlay>) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<OverlayView>> {
    const qb = this.overlays
      .createQueryBuilder('o')
      .where('o.userId = :userId', { userId: auth.user.id });
    return paginate(qb, query, 'cta', overlayView);
  }
}
