import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class AddBlocklistEntryDto {
  @ApiProperty({
    description:
      'A domain (blocks it and its subdomains; `https://bad.example/` is read as `bad.example`) or `keyword:<word>` (blocks every destination URL containing the word)',
    example: 'bad.example',
    minLength: 1,
    maxLength: 260,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(260)
  entry: string;
}
