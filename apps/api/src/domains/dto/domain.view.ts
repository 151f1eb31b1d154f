import { ApiProperty } from '@nestjs/swagger';

import { Domain } from '@app/database';

import { DomainVerifier } from '../domain.verifier';
import { DomainVerificationView } from './domain-created.view';

/** Where a branded domain's host must point (DOMAIN_VERIFY=dns: SERVICE_IPS, SERVICE_HOST). */
export class DomainTargetView {
  @ApiProperty({
    type: [String],
    example: ['203.0.113.7'],
    description: 'Addresses an A or AAAA record of the host may hold (SERVICE_IPS); [] when none',
  })
  addresses: string[];

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'edge.short.example',
    description: 'The host name a CNAME of the host may name (SERVICE_HOST); null when none',
  })
  cname: string | null;
}

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

  @ApiProperty({
    type: DomainVerificationView,
    nullable: true,
    description:
      'While the domain is not verified: the TXT record to create before POST /api/domain/:id/verify (as domain/add answered it); null once verified',
  })
  verification: DomainVerificationView | null;

  @ApiProperty({
    type: DomainTargetView,
    nullable: true,
    description:
      'The DNS record the host must keep: an A/AAAA record to one of `addresses` or a CNAME to `cname`; null when the service checks no DNS (DOMAIN_VERIFY=off)',
  })
  target: DomainTargetView | null;
}

/** The view of a row; `target`: where hosts must point (null when DNS is not checked). */
export function domainView(d: Domain, target: DomainTargetView | null): DomainView {
  return {
    id: d.id,
    domain: d.domain,
    redirectroot: d.redirectRoot,
    redirect404: d.redirect404,
    verified: d.verifiedAt !== null,
    verification: d.verifiedAt
      ? null
      : { type: 'TXT', name: DomainVerifier.recordName(d.host), value: d.verifyToken },
    target,
  };
}
