import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { generateApiKey, randomString } from '@app/common';
import { AppConfig } from '@app/config';
import { User } from '@app/database';

import { UsersService } from './users.service';

/**
 * At api start, creates the admin of ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_API_KEY if no user
 * has that e-mail. Idempotent; concurrent replicas are settled by the unique e-mail index.
 */
@Injectable()
export class AdminBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminBootstrap');

  constructor(
    private readonly config: AppConfig,
    private readonly users: UsersService,
    @InjectRepository(User) private readonly repo: Repository<User>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const email = this.config.ADMIN_EMAIL;
    if (!email) return;
    const exists = await this.repo
      .createQueryBuilder('u')
      .where('lower(u.email) = lower(:email)', { email })
      .getExists();
    if (exists) return;
    const generated = !this.config.ADMIN_API_KEY;
    const apiKey = this.config.ADMIN_API_KEY ?? generateApiKey();
    const username = (email.split('@')[0].replace(/[^A-Za-z0-9_.-]/g, '') || 'admin').slice(0, 24);
    try {
      await this.users.create({
        email,
        username: (await this.repo
          .createQueryBuilder('u')
          .where('lower(u.username) = lower(:username)', { username })
          .getExists())
          ? `${username.slice(0, 24)}-${randomString(6).toLowerCase()}`
          : username,
        password: this.config.ADMIN_PASSWORD ?? randomString(24),
        isAdmin: true,
        apiKey,
      });
    } catch (err) {
      if ((err as { status?: number }).status === 409) return; // another replica created it first
      throw err;
    }
    this.logger.log(`admin ${email} created`);
    // The one place a key is ever printed: shown once so the operator can copy it.
    if (generated)
      console.log(`\nADMIN API KEY for ${email} (shown once, store it now): ${apiKey}\n`);
  }
}
