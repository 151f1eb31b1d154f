import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  ApiErrors,
  ApiOkData,
  ApiOkFields,
  Auth,
  ForArea,
  IdParam,
  ListRoute,
  MessageRoute,
  Needs,
  PageQueryDto,
  Principal,
} from '@app/common';

import { AddMemberDto } from './dto/add-member.dto';
import { MemberView } from './dto/member.view';
import { UpdateMemberDto } from './dto/update-member.dto';
import { WorkspaceView } from './dto/workspace.view';
import { TeamService } from './team.service';

const ROLES = `Roles: viewer (every GET), editor (also links, QR codes, bio pages, campaigns, channels,
pixels, overlays, splash pages and imports), admin (also domains, webhooks, members, keys and the audit
log). A member acts in the workspace by sending X-Workspace: <workspace id> with its own key. Every change
is written to the audit log (member.add, member.update, member.remove).`;

/**
 * The members of the workspace the request acts in: `GET /api/team`, `POST /api/team/add`,
 * `PUT /api/team/:id/update`, `DELETE /api/team/:id/delete` (viewers read, admins change), and
 * the caller's own workspaces, `GET /api/workspaces`.
 */
@ApiTags('team')
@ApiBearerAuth()
@ForArea('team')
@Controller('api')
export class TeamController {
  constructor(private readonly team: TeamService) {}

  @ListRoute(
    'team',
    'members',
    MemberView,
    { summary: "The workspace's members, newest first (list, key members)", description: ROLES },
    [400],
  )
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.team.list(auth, query);
  }

  @Post('team/add')
  @ApiOperation({
    summary: 'Add a member: {error, id, userid, email, username, role, date}',
    description: `An existing user, by e-mail: 404 when no user has it; 400 for yourself or the
workspace's owner; 409 when already a member. 403 when the owner's plan lacks the team feature or its
team count is reached (0 = unlimited). Webhook event member.added. ${ROLES}`,
  })
  @ApiOkFields(MemberView)
  @ApiErrors(400, 403, 404, 409)
  add(@Auth() auth: Principal, @Body() dto: AddMemberDto) {
    return this.team.add(auth, dto);
  }

  @Put('team/:id/update')
  @ApiOperation({
    summary: "Change a member's role: {error, id, userid, email, username, role, date}",
    description:
      'id is the membership id (GET /api/team). The new role holds from the next request on every replica.',
  })
  @ApiOkFields(MemberView)
  @ApiErrors(400, 404)
  update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateMemberDto) {
    return this.team.update(auth, id, dto);
  }

  @MessageRoute(
    Delete('team/:id/delete'),
    {
      summary: 'Remove a member: {error, message}',
      description: `id is the membership id (GET /api/team); the owner is not a member (404). The keys the
member made for this workspace are deleted with it; both stop working at once on every replica. Webhook
event member.removed.`,
    },
    [400, 404],
  )
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.team.remove(auth, id);
    return { message: 'Member has been removed successfully.' };
  }

  @Get('workspaces')
  @Needs('team:read')
  @ApiOperation({
    summary: 'The workspaces you belong to: {error, data: [{id, name, role}]}',
    description: `Your own first (role owner, named by your username), then those you are a member of, in the
order you joined them; send X-Workspace: <id> to act in one. They are the caller's whatever X-Workspace
says. A named key acts in one workspace only: with one, the list holds that workspace alone.`,
  })
  @ApiOkData(WorkspaceView, true)
  workspaces(@Auth() auth: Principal) {
    return this.team.workspaces(auth);
  }
}
