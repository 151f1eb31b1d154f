import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';

import { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const ADMIN_ONLY = 'auth:admin';
export const WITHOUT_API_ACCESS = 'auth:without-api-access';
export const PRINCIPAL = Symbol('principal');

/** The route needs no API key (health, docs, login-link redemption). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The route is for admins only: a valid non-admin key gets 403. */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

/** The route stays open to users whose plan has the API disabled (only GET /api/account). */
export const AllowWithoutApiAccess = () => SetMetadata(WITHOUT_API_ACCESS, true);

/** Hands the authenticated caller to a handler: `@Auth() auth: Principal`. */
export const Auth = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest();
  return req[PRINCIPAL];
});
