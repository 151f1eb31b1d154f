import { Module } from '@nestjs/common';

import { TeamController } from './team.controller';
import { TeamService } from './team.service';

/** Workspace members: /api/team, /api/team/add, /api/team/:id/update|delete; /api/workspaces. */
@Module({ controllers: [TeamController], providers: [TeamService] })
export class TeamModule {}
