import { Module } from '@nestjs/common';

import { UsersModule } from '../users/users.module';
import { LoginLinksController } from './login-links.controller';
import { LoginLinksService } from './login-links.service';

/** One-time login links: issued by admins under /api, redeemed at /auth/login/:token. */
@Module({
  imports: [UsersModule],
  controllers: [LoginLinksController],
  providers: [LoginLinksService],
})
export class LoginLinksModule {}
