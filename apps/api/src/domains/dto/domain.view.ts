import { ApiProperty } from '@nestjs/swagger';

import { Domain } from '@app/database';

/** The documented Branded domain. */
export class DomainView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'https://go.example.com', description: 'URL including http or https' })
  domain: string;

  @ApiProperty({
    example: 'https://www.example.com',
    description: 'Where visitors of the domain root go ("" = none)',
  })
  redirectroot: string;

  @ApiProperty({ example: '', description: 'Where unknown aliases on the domain go ("" = none)' })
  redirect404: string;

  @ApiProperty({
    description:
      'Whether ownership is proven (POST /api/domain/:id/verify): the domain serves links only once it is',
  })
  verified: boolean;
}

/** The view of a row. */
export function domainView(d: Domain): DomainView {
  return {
    id: d.id,
    domain: d.domain,
    redirectroot: d.redirectRoot,
    redirect404: d.redirect404,
    verified: d.verifiedAt !== null,
  };
}
