import { Module } from '@nestjs/common';

import { AdminBootstrap } from './admin.bootstrap';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

/** Identity: users, their keys and their views, and the admin /api/users and /api/user/* routes. */
@Module({
  controllers: [UsersController],
  providers: [UsersService, AdminBootstrap],
  exports: [UsersService],
})
export class UsersModule {}
