import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { AllowWithoutApiAccess, Auth, Principal } from '@app/common';

import { AccountService } from './account.service';
import { UpdateAccountDto } from './dto/update-account.dto';

@ApiTags('account')
@ApiBearerAuth()
@Controller('api/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @AllowWithoutApiAccess()
  @ApiOperation({ summary: "The caller's account: {error, data: Account}" })
  async get(@Auth() auth: Principal) {
    return { data: await this.account.get(auth) };
  }

  @Put('update')
  @ApiOperation({ summary: 'Update e-mail and/or password: {error, message}' })
  async update(@Auth() auth: Principal, @Body() dto: UpdateAccountDto) {
    await this.account.update(auth, dto);
    return { message: 'Account has been updated successfully.' };
  }
}
