import { Module } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { QrModule } from '../qr/qr.module';
import { AdminBootstrap } from './admin.bootstrap';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

/** Identity: users, their keys and their views, and the admin /api/users and /api/user/* routes. */
@Module({
  imports: [PublicModule, QrModule],
  controllers: [UsersController],
  providers: [UsersService, AdminBootstrap],
  exports: [UsersService],
})
export class UsersModule {}
