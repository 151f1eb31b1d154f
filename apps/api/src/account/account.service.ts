import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  assertSendsAField,
  AuditLog,
  fieldsOf,
  hashPassword,
  Principal,
  PrincipalCache,
  SessionStore,
} from '@app/common';
import { User } from '@app/database';

import { AccountView, UsersService } from '../users/users.service';
import { UpdateAccountDto } from './dto/update-account.dto';

@Injectable()
export class AccountService {
  constructor(
    @InjectRepository(User) private readonly repo: Repository<User>,
    private readonly users: UsersService,
    private readonly owners: PrincipalCache,
    private readonly audit: AuditLog,
    private readonly sessions: SessionStore,
  ) {}

  get(auth: Principal): Promise<AccountView> {
    return this.users.accountView(auth.user);
  }

  rotateKey(auth: Principal): Promise<string> {
    return this.users.rotateKey(auth.user.id, (em) =>
      this.audit.record(em, auth, {
        action: 'account.rotate_key',
        resource: { type: 'account', id: auth.user.id },
        changes: ['apikey'],
      }),
    );
  }

  async update(auth: Principal, dto: UpdateAccountDto): Promise<void> {
    assertSendsAField(dto);
    const changes: Partial<User> = {};
    await this.users.assertUnique(dto.email, dto.username, auth.user.id);
    if (dto.email !== undefined) changes.email = dto.email;
    if (dto.username !== undefined) changes.username = dto.username;
    if (dto.password !== undefined) changes.passwordHash = await hashPassword(dto.password);
    // field names only: `password` when it changes, never its value
    const audited = {
      action: 'account.update',
      resource: { type: 'account', id: auth.user.id },
      changes: fieldsOf(dto),
    };
    // a concurrent change that took the e-mail or user name first: the unique index decides
    await this.audit
      .change(auth, audited, (em) => em.update(User, { id: auth.user.id }, changes))
      .catch((err: unknown) => this.users.rethrowTaken(err));
    await this.owners.forgetUser(auth.user.id);
    // a new password signs every browser out, on every replica (the one that changed it too)
    if (changes.passwordHash) await this.sessions.endAll(auth.user.id);
  }
}
