import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { PageQueryDto, paginate, Paginated, Principal } from '@app/common';
import { SplashPage } from '@app/database';

import { splashView, SplashView } from './dto/splash.view';

@Injectable()
export class SplashService {
  constructor(@InjectRepository(SplashPage) private readonly pages: Repository<SplashPage>) {}

  list(auth: Principal, query: PageQueryDto): Promise<Paginated<SplashView>> {
    const qb = this.pages
      .createQueryBuilder('s')
      .where('s.userId = :userId', { userId: auth.user.id });
    return paginate(qb, query, 'splash', splashView);
  }
}
