import { Plan, User } from '@app/database';

/** The authenticated caller, as every controller receives it through `@Auth()`. */
export interface Principal {
  user: User;
  /** The plan in force now: the user's plan, or the free plan once a paid membership expired. */
  plan: Plan;
  isAdmin: boolean;
}

/** Why a request has no principal. */
export type AuthFailure = 'missing' | 'invalid' | 'expired';

export type AuthResult = { principal: Principal } | { failure: AuthFailure };

export const AUTH_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Missing API key: send the header Authorization: Bearer <API_KEY> (or Token <API_KEY>)',
  invalid: 'Invalid API key',
  expired: 'API key has expired',
};
