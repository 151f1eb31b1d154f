import { ApiProperty } from '@nestjs/swagger';

export class PixelCreatedView {
  @ApiProperty({ example: 1 })
  id: number;
}
