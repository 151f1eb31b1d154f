import { Module } from '@nestjs/common';

import { PublicModule } from '../public/public.module';
import { DnsResolver } from './dns.resolver';
import { DomainVerifier } from './domain.verifier';
import { DomainsController } from './domains.controller';
import { DomainsService } from './domains.service';

/** Branded domains: /api/domains, /api/domain/add, /api/domain/:id/update|delete. */
@Module({
  imports: [PublicModule],
  controllers: [DomainsController],
  providers: [DomainsService, DomainVerifier, DnsResolver],
})
export class DomainsModule {}
