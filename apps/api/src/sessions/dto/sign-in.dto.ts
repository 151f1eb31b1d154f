import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

/** `POST /auth/session`: a person's e-mail (any case) and password. */
export class SignInDto {
  @ApiProperty({ example: 'jane@example.com', minLength: 1, maxLength: 254 })
  @IsString()
  @Length(1, 254, { message: 'email must be 1 to 254 characters' })
  email: string;

  @ApiProperty({ minLength: 1, maxLength: 128 })
  @IsString()
  @Length(1, 128, { message: 'password must be 1 to 128 characters' })
  password: string;
}
