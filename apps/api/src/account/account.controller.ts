import { Body, Controller, Get, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AllowWithoutApiAccess,
  ApiErrors,
  ApiOkFields,
  Auth,
  Principal,
  RotatedKeyView,
} from '@app/common';

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

  @Post('key/rotate')
  @ApiOperation({
    summary: "Replace the caller's own API key: {error, id, apikey}",
    description:
      'The key that made this call stops working at once on every api instance; use the returned one from now on.',
  })
  @ApiOkFields(RotatedKeyView)
  @ApiErrors(400, 403)
  async rotateKey(@Auth() auth: Principal) {
    return { id: auth.user.id, apikey: await this.account.rotateKey(auth) };
  }

  @Put('update')
  @ApiOperation({ summary: 'Update e-mail and/or password: {error, message}' })
  async update(@Auth() auth: Principal, @Body() dto: UpdateAccountDto) {
    await this.account.update(auth, dto);
    return { message: 'Account has been updated successfully.' };
  }
}
