import { ApiProperty } from '@nestjs/swagger';

export class DomainCreatedView {
  @ApiProperty({ example: 1 })
  id: number;
}
