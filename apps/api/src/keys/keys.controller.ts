import { Body, Controller, Delete, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkFields,
  Auth,
  ForArea,
  IdParam,
  ListRoute,
  MessageRoute,
  PageQueryDto,
  Principal,
} from '@app/common';

import { AddKeyDto } from './dto/add-key.dto';
import { KeyCreatedView } from './dto/key-created.view';
import { KeyView } from './dto/key.view';
import { UpdateKeyDto } from './dto/update-key.dto';
import { KeysService, MAX_KEYS } from './keys.service';

const NAMED_KEYS = `A named key is sent like the personal key (Authorization: Bearer <key>) and acts in the workspace
it was made in for the member who made it: within its scopes (403 "This key lacks the scope <scope>") and never
beyond its creator's role there. X-Workspace naming another workspace is a 404. Needs the role admin (scope
keys:read to list, keys:write to change).`;

@ApiTags('keys')
@ApiBearerAuth()
@ForArea('keys')
@Controller('api')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @ListRoute('keys', 'keys', KeyView, {
    summary: "The workspace's named API keys, newest first (never the keys themselves)",
    description: NAMED_KEYS,
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.keys.list(auth, query);
  }

  @Post('key/add')
  @ApiOperation({
    summary: 'Make a named API key: {error, id, key}, the only time the key is shown',
    description: `${NAMED_KEYS} 403 for a scope beyond the caller's role or key, or past ${MAX_KEYS.max} keys per workspace.`,
  })
  @ApiOkFields(KeyCreatedView)
  @ApiErrors(400, 403)
  add(@Auth() auth: Principal, @Body() dto: AddKeyDto) {
    return this.keys.add(auth, dto);
  }

  @MessageRoute(Put('key/:id/update'), {
    summary: 'Change a named key (name, scopes, expiry)',
    description: `Only the fields sent change (at least one). In force on every api replica within a second. ${NAMED_KEYS}`,
  })
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateKeyDto) {
    await this.keys.update(auth, id, dto);
    return { message: 'API key has been updated successfully.' };
  }

  @MessageRoute(Delete('key/:id/delete'), {
    summary: 'Revoke a named key',
    description: `Refused (401) on every api replica within a second. ${NAMED_KEYS}`,
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.keys.remove(auth, id);
    return { message: 'API key has been deleted successfully.' };
  }
}
