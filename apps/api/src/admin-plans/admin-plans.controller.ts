import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AdminOnly,
  ApiErrors,
  ApiOkData,
  Auth,
  IdParam,
  MessageRoute,
  Principal,
} from '@app/common';

import { PlanResponse } from './dto/plan.view';
import { SubscribePlanDto } from './dto/subscribe-plan.dto';
import { AdminPlansService } from './admin-plans.service';

@ApiTags('plans')
@ApiBearerAuth()
@AdminOnly()
@Controller('api')
export class AdminPlansController {
  constructor(private readonly plans: AdminPlansService) {}

  @Get('plans')
  @ApiOperation({
    summary: 'List plans (admin): {error, data: [Plan]}',
    description: 'Not paginated; newest first.',
  })
  @ApiOkData(PlanResponse, true)
  @ApiErrors(403)
  async list() {
    return { data: await this.plans.list() };
  }

  @MessageRoute(Put('plan/:planid/user/:userid'), {
    summary: 'Subscribe a user to a plan (admin): {error, message}',
    description:
      "Without `expiration`: monthly = now + 1 calendar month (clamped to the month's last day), yearly = now + 12 " +
      'months, lifetime = no expiry. A free plan never expires. Once a paid membership is past its expiry the user ' +
      'falls back to the free plan (status `free`). Unknown plan or user: 404.',
  })
  async subscribe(
    @Auth() auth: Principal,
    @IdParam('planid') planId: number,
    @IdParam('userid') userId: number,
    @Body() dto: SubscribePlanDto,
  ) {
    await this.plans.subscribe(auth, planId, userId, dto);
    return { message: 'User has been subscribed to the plan successfully.' };
  }
}
