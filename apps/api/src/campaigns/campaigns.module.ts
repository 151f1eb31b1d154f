import { Module, OnModuleInit } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { PublicRoutes } from '../public/public-routes';
import { CampaignPublicHandler } from './campaign-public.handler';
import { CampaignRotation } from './campaign-rotation';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';

/**
 * Campaigns: /api/campaigns, /api/campaign/add|:id/update|:id/delete|:campaignid/assign/:linkid,
 * and their public pages on the main host: the rotator `/r/<slug>` and the list page
 * `/u/<slug>-<id>`.
 */
@Module({
  imports: [PublicModule],
  controllers: [CampaignsController],
  providers: [CampaignsService, CampaignPublicHandler, CampaignRotation],
})
export class CampaignsModule implements OnModuleInit {
  constructor(
    private readonly routes: PublicRoutes,
    private readonly handler: CampaignPublicHandler,
  ) {}

  onModuleInit(): void {
    this.routes.register('/r/', (_req, res, ctx) => this.handler.rotator(res, ctx));
    this.routes.register('/u/', (_req, res, ctx) => this.handler.list(res, ctx));
  }
}
