import { Body, Controller, Get, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AllowWithoutApiAccess,
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  Auth,
  MessageRoute,
  Needs,
  Principal,
  RotatedKeyView,
} from '@app/common';

import { AccountService } from './account.service';
import { AccountResponse } from './dto/account.view';
import { UpdateAccountDto } from './dto/update-account.dto';

@ApiTags('account')
@ApiBearerAuth()
@Needs('owner')
@Controller('api/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @AllowWithoutApiAccess()
  @ApiOperation({
    summary: "The caller's account: {error, data: Account}",
    description: 'Also answers when the plan has the API disabled (api.enabled = "0").',
  })
  @ApiOkData(AccountResponse)
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

  @MessageRoute(
    Put('update'),
    {
      summary: 'Update e-mail, user name and/or password: {error, message}',
      description:
        'At least one of email, username and password. 400 for an empty body or an invalid field; 409 when the e-mail or the user name belongs to another user (case-insensitive). A new password ends every signed-in session of the account.',
    },
    [400, 409],
  )
  async update(@Auth() auth: Principal, @Body() dto: UpdateAccountDto) {
    await this.account.update(auth, dto);
    return { message: 'Account has been updated successfully.' };
  }
}
