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

import { DomainsService } from './domains.service';
import { AddDomainDto } from './dto/add-domain.dto';
import { DomainCreatedView } from './dto/domain-created.view';
import { DomainView } from './dto/domain.view';
import { UpdateDomainDto } from './dto/update-domain.dto';

@ApiTags('branded domains')
@ApiBearerAuth()
@ForArea('domains')
@Controller('api')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @ListRoute('domains', 'domains', DomainView, {
    summary: "The caller's branded domains, newest first",
  })
  list(@Auth() auth: Principal, @Query() query: PageQueryDto) {
    return this.domains.list(auth, query);
  }

  @Post('domain/add')
  @ApiOperation({
    summary: 'Add a branded domain',
    description:
      '`domain` is http(s)://host (no path, query, credentials or port), unique across the service: 409 when taken. ' +
      "The service's own host name is refused. With DOMAIN_VERIFY=dns the host must resolve (A/AAAA) to one of " +
      'SERVICE_IPS or be a CNAME of SERVICE_HOST, else 400 "domain: does not point to this service (...)" (lookup ' +
      "timeout 3 s). A subdomain of the service's own host is refused. redirectroot / redirect404 may not point at the service's own hosts or a blocked destination. 403 past the plan's `domain` count or when the plan has branded domains disabled. " +
      'The answer carries the TXT record that proves ownership (verification): the domain serves links once POST /api/domain/:id/verify finds it (DOMAIN_VERIFY=off: at once, verification null).',
  })
  @ApiOkFields(DomainCreatedView)
  @ApiErrors(400, 403, 409)
  add(@Auth() auth: Principal, @Body() dto: AddDomainDto) {
    return this.domains.add(auth, dto);
  }

  @MessageRoute(Post('domain/:id/verify'), {
    summary: 'Prove ownership of a branded domain',
    description:
      'With DOMAIN_VERIFY=dns a new domain serves links only once the TXT record _linkverify.<host> holds the token its creation answered (verification.value). 400 until it does (the answer never repeats what DNS holds); already verified: 200.',
  })
  verify(@Auth() auth: Principal, @IdParam('id') id: number) {
    return this.domains.verify(auth, id);
  }

  @MessageRoute(Put('domain/:id/update'), {
    summary: 'Change the root and 404 redirects of a branded domain',
    description:
      'Both fields optional; an empty string removes a redirect; an empty body changes nothing.',
  })
  async update(@Auth() auth: Principal, @IdParam('id') id: number, @Body() dto: UpdateDomainDto) {
    await this.domains.update(auth, id, dto);
    return { message: 'Domain has been updated successfully.' };
  }

  @MessageRoute(Delete('domain/:id/delete'), {
    summary: 'Delete a branded domain',
    description: "Links on it fall back to the service's own domain.",
  })
  async remove(@Auth() auth: Principal, @IdParam('id') id: number) {
    await this.domains.remove(auth, id);
    return { message: 'Domain has been deleted successfully.' };
  }
}
