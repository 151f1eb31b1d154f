import { Module } from '@nestjs/common';

import { PlansController } from './plans.controller';
import { PlansService } from './plans.service';

/** Admin: the plan list and subscribing a user to a plan. */
@Module({ controllers: [PlansController], providers: [PlansService] })
export class PlansModule {}
