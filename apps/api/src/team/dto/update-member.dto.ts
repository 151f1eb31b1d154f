import { PickType } from '@nestjs/swagger';

import { AddMemberDto } from './add-member.dto';

/** Only the role changes; a member's user is fixed (remove and add another). */
export class UpdateMemberDto extends PickType(AddMemberDto, ['role']) {}
