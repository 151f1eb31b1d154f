import { ApiProperty } from '@nestjs/swagger';

/** The documented Branded domain. */
export class DomainView {
  @ApiProperty({ example: 1 })
  id: number;

  @ApiProperty({ example: 'https://go.example.com', description: 'URL including http or https' })
  domain: string;

  @ApiProperty({
    example: 'https://www.example.com',
    description: 'Where visitors of the domain root go ("" = none)',
  })
  redirectroot: string;

  @ApiProperty({ example: '', description: 'Where unknown aliases on the domain go ("" = none)' })
  redirect404: string;
}
