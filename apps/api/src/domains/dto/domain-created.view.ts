import { ApiProperty } from '@nestjs/swagger';

/** The DNS record that proves ownership of a branded domain. */
export class DomainVerificationView {
  @ApiProperty({ example: 'TXT', enum: ['TXT'] })
  type: 'TXT';

  @ApiProperty({ example: '_linkverify.go.example.com' })
  name: string;

  @ApiProperty({ example: 'MYalvQXNBwbassyJD1HQLPNgppPkRgt4' })
  value: string;
}

export class DomainCreatedView {
  @ApiProperty({ type: 'integer', example: 1 })
  id: number;

  @ApiProperty({
    type: DomainVerificationView,
    nullable: true,
    description:
      'The TXT record to create before POST /api/domain/:id/verify; null when ownership needs no proof (DOMAIN_VERIFY=off)',
  })
  verification: DomainVerificationView | null;
}
