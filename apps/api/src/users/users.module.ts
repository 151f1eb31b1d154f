import { Module } from '@nestjs/common';

import { AdminBootstrap } from './admin.bootstrap';
import { UsersService } from './users.service';

/** Identity: users, their keys and their views. The admin /api/user* routes live here too. */
@Module({
  providers: [UsersService, AdminBootstrap],
  exports: [UsersService],
})
export class UsersModule {}
