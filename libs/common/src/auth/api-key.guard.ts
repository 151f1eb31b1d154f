import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { ForbiddenError, UnauthorizedError } from '../http/errors';
import { AuthService } from './auth.service';
import { ADMIN_ONLY, IS_PUBLIC, WITHOUT_API_ACCESS } from './decorators';
import { AUTH_MESSAGES } from './principal';

/**
 * Global guard, fail-closed: every route needs a valid API key unless marked `@Public()`.
 * Then `@AdminOnly()` routes need an admin, and a plan with `api.enabled = "0"` only reaches
 * routes marked `@AllowWithoutApiAccess()`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const result = await this.auth.resolve(context.switchToHttp().getRequest());
    if ('failure' in result) throw new UnauthorizedError(AUTH_MESSAGES[result.failure]);
    const { principal } = result;

    if (this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets) && !principal.isAdmin) {
      throw new ForbiddenError('Admin privileges are required');
    }
    const apiEnabled = principal.plan.limits.api?.enabled === '1';
    if (
      !principal.isAdmin &&
      !apiEnabled &&
      !this.reflector.getAllAndOverride<boolean>(WITHOUT_API_ACCESS, targets)
    ) {
      throw new ForbiddenError('Your plan does not include API access');
    }
    return true;
  }
}
