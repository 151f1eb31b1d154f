import { Module } from '@nestjs/common';

import { DestinationsModule } from '../destinations/destinations.module';
import { LinkCacheModule } from '../link-cache/link-cache.module';
import { DnsResolver } from './dns.resolver';
import { DomainVerifier } from './domain.verifier';
import { DomainsController } from './domains.controller';
import { DomainsService } from './domains.service';

/** Branded domains: /api/domains, /api/domain/add, /api/domain/:id/update|delete. */
@Module({
  imports: [LinkCacheModule, DestinationsModule],
  controllers: [DomainsController],
  providers: [DomainsService, DomainVerifier, DnsResolver],
})
export class DomainsModule {}
