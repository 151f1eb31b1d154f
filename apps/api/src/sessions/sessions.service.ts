import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import { DUMMY_PASSWORD_HASH, SessionStore, UnauthorizedError, verifyPassword } from '@app/common';
import { User } from '@app/database';

import { SignInAttempts } from './sign-in-attempts';

/** The one answer to a wrong e-mail or a wrong password: which of the two is not said. */
export const WRONG_SIGN_IN = 'Wrong e-mail or password';
/** `GET /auth/session` without a live session. */
export const NOT_SIGNED_IN = 'Not signed in (no session, or it has ended)';

export interface SessionData {
  id: number;
  email: string;
  username: string;
  /** Whether the user is an admin (the dashboard shows the admin area). */
  admin: boolean;
  csrf: string;
}

/**
 * Signing people in with their password (the dashboard): argon2 verification as stored by
 * UsersService, the guess limit (SignInAttempts), and the session (SessionStore, Redis).
 */
@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly store: SessionStore,
    private readonly attempts: SignInAttempts,
  ) {}

  private withHash(where: string, value: string | number): Promise<User | null> {
    return this.users
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where(where, { value })
      .getOne();
  }

  /**
   * `POST /auth/session`: a new session (its token for the cookie) and what the answer says. An
   * unknown e-mail verifies against a dummy hash, so that it costs what a wrong password costs.
   */
  async signIn(
    email: string,
    password: string,
    address: string,
  ): Promise<{ token: string; data: SessionData }> {
    const reservation = await this.attempts.reserve(email, address);
    const user = await this.withHash('lower(u.email) = lower(:value)', email);
    const right = await verifyPassword(user?.passwordHash ?? DUMMY_PASSWORD_HASH, password);
    if (!user || !right) throw new UnauthorizedError(WRONG_SIGN_IN);
    const { token, session } = await this.store.create(user.id);
    // The password changed or the user was deleted while this ran: that change ended the user's
    // sessions before this one was stored, so it ends it here (endAll then needs no lock).
    const now = await this.withHash('u.id = :value', user.id);
    if (now?.passwordHash !== user.passwordHash) {
      await this.store.end(token);
      throw new UnauthorizedError(WRONG_SIGN_IN);
    }
    await this.attempts.release(reservation);
    return {
      token,
      data: {
        id: user.id,
        email: user.email,
        username: user.username,
        admin: user.isAdmin,
        csrf: session.csrf,
      },
    };
  }

  /** `GET /auth/session`: the session's user and CSRF token; 401 without a live session. */
  async current(token: string | null): Promise<SessionData> {
    const session = token ? await this.store.read(token) : null;
    const user = session
      ? await this.users.findOne({
          select: { id: true, email: true, username: true, isAdmin: true },
          where: { id: session.userId },
        })
      : null;
    if (!session || !user) throw new UnauthorizedError(NOT_SIGNED_IN);
    return {
      id: user.id,
      email: user.email,
      username: user.username,
      admin: user.isAdmin,
      csrf: session.csrf,
    };
  }

  /** `DELETE /auth/session`: ends the session, if any. */
  async end(token: string | null): Promise<void> {
    if (token) await this.store.end(token);
  }
}
