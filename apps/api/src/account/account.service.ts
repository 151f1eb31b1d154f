import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { assertSendsAField, hashPassword, Principal, PrincipalCache } from '@app/common';
import { User } from '@app/database';

import { AccountView, UsersService } from '../users/users.service';
import { UpdateAccountDto } from './dto/update-account.dto';

@Injectable()
export class AccountService {
  constructor(
    @InjectRepository(User) private readonly repo: Repository<User>,
    private readonly users: UsersService,
    private readonly owners: PrincipalCache,
  ) {}

  get(auth: Principal): Promise<AccountView> {
    return this.users.accountView(auth.user);
  }

  rotateKey(auth: Principal): Promise<string> {
    return this.users.rotateKey(auth.user.id);
  }

  async update(auth: Principal, dto: UpdateAccountDto): Promise<void> {
    assertSendsAField(dto);
    const changes: Partial<User> = {};
    if (dto.email !== undefined) {
      await this.users.assertUnique(dto.email, undefined, auth.user.id);
      changes.email = dto.email;
    }
    if (dto.password !== undefined) changes.passwordHash = await hashPassword(dto.password);
    await this.repo.update({ id: auth.user.id }, changes);
    await this.owners.forgetUser(auth.user.id);
  }
}
