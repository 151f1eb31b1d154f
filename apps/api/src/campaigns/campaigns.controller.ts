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

import { CampaignsService } from './campaigns.service';
import { AddCampaignDto } from './dto/add-campaign.dto';
import { CampaignView } from './dto/campaign.view';
import { UpdateCampaignDto } from './dto/update-campaign.dto';

const SAVED_SHAPE =
  'Answers {error, id, domain, name, public, rotator, list}: `domain` holds the campaign name (documented quirk), ' +
  '`name` carries it too. rotator = <PUBLIC_URL>/r/<slug> or false without a slug; list = ' +
  '<PUBLIC_URL>/u/<slug or slugified name>-<id> (slugified: lower-case, runs of other characters as "-", "campaign" when empty).';

@ApiTags('campaigns')
@ApiBearerAuth()
@ForArea('campaigns')
@Controller('api')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @ListRoute('campaigns', 'campaigns', CampaignView, {
    summary: "The caller's campaigns, newest first",
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.campaigns.list(auth, query);
  }

  @Post('campaign/add')
  @ApiOperation({
    summary: 'Create a campaign',
    description: `All fields optional; slug unique across the service (409). Needs the plan feature "bundle" (403). ${SAVED_SHAPE}`,
  })
  @ApiOkFields(CampaignView)
  @ApiErrors(400, 403, 409)
  add(@Auth() auth: Principal, @Body() dto: AddCampaignDto) {
    return this.campaigns.add(auth, dto);
  }

  @MessageRoute(Post('campaign/:campaignid/assign/:linkid'), {
    summary: 'Put a short link into a campaign',
    description:
      "The link must be one of the caller's short links (404 otherwise). A link is in at most one campaign: assigning moves it.",
  })
  async assign(
    @Auth() auth: Principal,
    @IdParam('campaignid') campaignId: number,
    @IdParam('linkid') linkId: number,
  ) {
    await this.campaigns.assign(auth, campaignId, linkId);
    return { message: 'Link has been assigned to the campaign successfully.' };
  }

  @Put('campaign/:id/update')
  @ApiOperation({
    summary: 'Update a campaign',
    description: `name required; slug and public optional. ${SAVED_SHAPE}`,
  })
  @ApiOkFields(CampaignView)
  @ApiErrors(400, 403, 404, 409)
  update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateCampaignDto) {
    return this.campaigns.update(auth, id, dto);
  }

  @MessageRoute(Delete('campaign/:id/delete'), {
    summary: 'Delete a campaign',
    description: 'Its links are kept and unassigned.',
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.campaigns.remove(auth, id);
    return { message: 'Campaign has been deleted successfully.' };
  }
}
