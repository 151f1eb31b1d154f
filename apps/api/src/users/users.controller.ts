import { Body, Controller, Delete, Get, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AdminOnly,
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  Auth,
  IdParam,
  MessageRoute,
  Principal,
  RotatedKeyView,
} from '@app/common';

import { CreateUserDto } from './dto/create-user.dto';
import { CreatedUserResponse } from './dto/created-user.view';
import { ListUsersQueryDto } from './dto/list-users-query.dto';
import { UserResponse } from './dto/user.view';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiBearerAuth()
@AdminOnly()
@Controller('api')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get('users')
  @ApiOperation({
    summary: 'List users (admin): {error, data: [User]}',
    description:
      'Newest first. `data` is an array (not the paginated envelope); `limit` (default 100, max 1000) and `page` ' +
      '(default 1) select a slice. `email` is a case-insensitive substring search.',
  })
  @ApiOkData(UserResponse, true)
  @ApiErrors(400, 403)
  async list(@Query() query: ListUsersQueryDto) {
    return { data: await this.users.list(query) };
  }

  @Get('user/:id')
  @ApiOperation({ summary: 'One user (admin): {error, data: User}' })
  @ApiOkData(UserResponse)
  @ApiErrors(400, 403, 404)
  async get(@IdParam('id') id: number) {
    return { data: await this.users.view(id) };
  }

  @Post('user/add')
  @ApiOperation({
    summary: 'Create a user (admin): {error, message, data: {id, email, username}}',
    description:
      'A new API key is generated. Duplicate e-mail (case-insensitive) or username: 409 naming the field.',
  })
  @ApiOkFields(CreatedUserResponse)
  @ApiErrors(400, 403, 409)
  async add(@Auth() auth: Principal, @Body() dto: CreateUserDto) {
    return {
      message: 'User has been created successfully.',
      data: await this.users.add(auth, dto),
    };
  }

  @Post('user/:id/key/rotate')
  @ApiOperation({
    summary: 'Give a user a new API key (admin): {error, id, apikey}',
    description: 'The old key stops working at once on every api instance (401 "Invalid API key").',
  })
  @ApiOkFields(RotatedKeyView)
  @ApiErrors(400, 403, 404)
  async rotateKey(@Auth() auth: Principal, @IdParam('id') id: number) {
    return { id, apikey: await this.users.rotateKeyOf(auth, id) };
  }

  @MessageRoute(Delete('user/:id/delete'), {
    summary: 'Delete a user and everything it owns (admin): {error, message}',
    description:
      'Links, QR codes, domains, campaigns, channels, pixels, overlays, splash pages and login links go too. ' +
      'An admin cannot delete itself (403).',
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.users.remove(auth, id);
    return { message: 'User has been deleted successfully.' };
  }
}
