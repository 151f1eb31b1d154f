import { ApiProperty } from '@nestjs/swagger';

import { DayRangeView } from './stats.view';

export class ReachLinkView {
  @ApiProperty({ type: 'integer', description: 'The short code’s id' }) id: number;
  @ApiProperty({ type: 'integer', description: 'Its distinct visitors over the range' })
  visitors: number;
}

export class ReachOverlapView {
  @ApiProperty({ type: 'integer', description: 'One short code’s id' }) a: number;
  @ApiProperty({ type: 'integer', description: 'The other’s (after a in links)' }) b: number;
  @ApiProperty({
    type: 'integer',
    description: 'Distinct visitors of both over the range: |A| + |B| − |A ∪ B|, never below 0',
  })
  visitors: number;
}

/** `data` of `GET /api/stats/reach`. */
export class ReachView extends DayRangeView {
  @ApiProperty({
    type: 'integer',
    description:
      'Distinct visitors of the whole set over the range (union of every short code’s day and month sketches): a visitor of several of them, on several days, counts once',
  })
  visitors: number;
  @ApiProperty({
    type: [ReachLinkView],
    description: 'Each short code of the set, in the order asked (campaign, channel: by id)',
  })
  links: ReachLinkView[];
  @ApiProperty({
    type: [ReachOverlapView],
    description: 'Every pair of the set (n·(n−1)/2 entries), in the order of links',
  })
  overlap: ReachOverlapView[];
  @ApiProperty({
    type: 'number',
    format: 'double',
    example: 0.008125,
    description:
      'The relative standard error of each count above (1.04 / √16384 = 0.81 %): about 99.7 % of counts lie within ±3 errors of the truth; small counts (a few hundred) are practically exact. An overlap, a difference of three counts, has a larger absolute error: up to ±3 · error · (|A| + |B| + |A ∪ B|).',
  })
  error: number;
}
