import { ApiProperty } from '@nestjs/swagger';

/** `key/add`'s answer: the only time the key is shown. */
export class KeyCreatedView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({
    example: 'lk_AbC1234dEf5678GhI9012jKl3456MnO7890pQr1',
    description:
      'The key: `lk_` and 40 random characters. Shown only now; only its digest is kept.',
  })
  key: string;
}
