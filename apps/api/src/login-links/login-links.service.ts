import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { GoneError, NotFoundError, PublicUrls, randomString, sha256 } from '@app/common';
import { isForeignKeyViolation, LoginToken, User } from '@app/database';

import { UsersService } from '../users/users.service';

const TOKEN_LENGTH = 48;
const TOKEN_PATTERN = new RegExp(`^[A-Za-z0-9]{${TOKEN_LENGTH}}$`);

export interface LoginResult {
  id: number;
  email: string;
  username: string;
  apikey: string | null;
}

/**
 * One-time login links: a 48-character CSPRNG token, stored only as its SHA-256 digest, valid
 * one hour (database clock), claimed by a single conditional UPDATE so that concurrent requests
 * cannot both use it. A rotation of the user's API key revokes the links issued before it
 * (UsersService.rotateKey): they answer 410.
 */
@Injectable()
export class LoginLinksService {
  constructor(
    @InjectRepository(LoginToken) private readonly tokens: Repository<LoginToken>,
    @InjectRepository(User) private readonly userRepo: Repository<User>,
    private readonly users: UsersService,
    private readonly urls: PublicUrls,
  ) {}

  /** `GET /api/user/login/:id`: a new link for the user; 404 for an unknown id. */
  async issue(userId: number): Promise<string> {
    if (!(await this.userRepo.existsBy({ id: userId }))) throw new NotFoundError('User');
    const token = randomString(TOKEN_LENGTH);
    await this.tokens
      .createQueryBuilder()
      .insert()
      .values({ userId, tokenHash: sha256(token), expiresAt: () => "now() + interval '1 hour'" })
      .execute()
      .catch((err: unknown) => {
        // The user was deleted between the check and the insert.
        if (isForeignKeyViolation(err)) throw new NotFoundError('User');
        throw err;
      });
    return this.urls.login(token);
  }

  /** `GET /auth/login/:token`: the user's identity and key, once; 410 when used or expired, 404 when unknown. */
  async redeem(token: string): Promise<LoginResult> {
    if (!TOKEN_PATTERN.test(token)) throw new NotFoundError('Login link');
    const tokenHash = sha256(token);
    // UPDATE login_tokens SET used_at = now()
    //  WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id
    const { raw: claimed } = (await this.tokens
      .createQueryBuilder()
      .update()
      .set({ usedAt: () => 'now()' })
      .where(
        'token_hash = :tokenHash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()',
        { tokenHash },
      )
      .returning('user_id')
      .execute()) as { raw: { user_id: number }[] };
    if (!claimed.length) {
      const row = await this.tokens.findOne({
        where: { tokenHash },
        select: { id: true, usedAt: true, revokedAt: true },
      });
      if (!row) throw new NotFoundError('Login link');
      throw new GoneError(
        row.usedAt
          ? 'This login link has already been used'
          : row.revokedAt
            ? "This login link was revoked: the user's API key was rotated after it was issued"
            : 'This login link has expired',
      );
    }
    const user = await this.users.findWithPlan({ id: claimed[0].user_id }, true);
    if (!user) throw new NotFoundError('Login link');
    const { id, email, username, apikey } = await this.users.adminView(user);
    return { id, email, username, apikey };
  }
}
