import { ApiProperty } from '@nestjs/swagger';

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
export class ReachView {
  @ApiProperty({
    example: '2026-11-01',
    format: 'date',
    description: 'First day answered: the one asked for, or raised to the first day the plan keeps',
  })
  from: string;
  @ApiProperty({ example: '2026-11-30', format: 'date', description: 'Last day answered' })
  to: string;
  @ApiProperty({
    type: 'integer',
    description: 'Days of statistics the plan keeps (0 = forever; admins: 0)',
  })
  retention: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Set when from was raised to what the plan keeps, saying so; otherwise null',
    example: null,
  })
  notice: string | null;
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
