import { OmitType } from '@nestjs/swagger';

import { PartialUpdateType } from '@app/common';

import { AddDomainDto } from './add-domain.dto';

/** Both optional (the spec makes none mandatory); the domain itself cannot change. */
export class UpdateDomainDto extends PartialUpdateType(OmitType(AddDomainDto, ['domain'])) {}
