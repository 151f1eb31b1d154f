import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { formatDateTime, PageQueryDto, paginate, Paginated, Principal } from '@app/common';
import { SplashPage } from '@app/database';

import { SplashView } from './dto/splash.view';

@Injectable()
export class SplashService {
  constructor(@InjectRepository(SplashPage) private readonly pages: Repository<SplashPage>) {}

  static view(s: SplashPage): SplashView {
    return { id: s.id, name: s.name, date: formatDateTime(s.createdAt) as string };
  }

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<SplashView>> {
    const qb = this.pages
      .createQueryBuilder('s')
      .where('s.userId = :userId', { userId: auth.user.id });
    return paginate(qb, query, 'splash', SplashService.view);
  }
}
