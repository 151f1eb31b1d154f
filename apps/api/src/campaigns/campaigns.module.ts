import { Module } from '@nestjs/common';

import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';

/** Campaigns: /api/campaigns, /api/campaign/add|:id/update|:id/delete|:campaignid/assign/:linkid. */
@Module({ controllers: [CampaignsController], providers: [CampaignsService] })
export class CampaignsModule {}
