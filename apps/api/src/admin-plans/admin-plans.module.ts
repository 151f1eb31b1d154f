import { Module } from '@nestjs/common';

import { AdminPlansController } from './admin-plans.controller';
import { AdminPlansService } from './admin-plans.service';

/** Admin: the plan list and subscribing a user to a plan. */
@Module({ controllers: [AdminPlansController], providers: [AdminPlansService] })
export class AdminPlansModule {}
