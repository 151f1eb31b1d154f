import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

import { ApiErrors, ApiOkData, Auth, ForArea, Principal } from '@app/common';
import { MAX_REACH_LINKS } from '@app/stats';

import { ReachQueryDto } from './dto/reach-query.dto';
import { ReachView } from './dto/reach.view';
import { ReachService } from './reach.service';

const REACH = `How many distinct people a set of your short codes reached over a range of days, and how many each pair shares. The set is exactly one of: links (your short links' ids, comma-separated), campaign (its short links) or channel (its links, bio pages and QR codes); at most ${MAX_REACH_LINKS} short codes. from / to as for GET /api/stats (UTC days, default the last 30, at most 400 days, raised to what the plan keeps). Counted from the stored HyperLogLog sketches of each day and calendar month (and Redis's for the last days, so visits show at once); no address is kept. visitors is the union of every sketch of the set; overlap gives each pair |A| + |B| − |A ∪ B| (never below 0); data.error is the relative standard error of each count (0.008125, 1.04/√16384): the envelope's own error stays 0. Days folded before sketches were kept count for nothing here. 400 naming the field for none or several of links, campaign, channel, a bad id, too many links, a bad from / to; 404 for a link, campaign or channel that is not yours.`;

@ApiTags('statistics')
@ApiBearerAuth()
@ForArea('stats')
@Controller('api')
export class ReachController {
  constructor(private readonly reach: ReachService) {}

  @Get('stats/reach')
  @ApiOperation({
    summary:
      'Distinct visitors of a set of short codes, and their pairwise overlaps: {error, data}',
    description: REACH,
  })
  @ApiOkData(ReachView)
  @ApiErrors(400, 404)
  get(@Auth() auth: Principal, @Query() query: ReachQueryDto) {
    return this.reach.reach(auth, query);
  }
}
