import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

import { AppError, ForbiddenError, UnauthorizedError } from '../http/errors';
import { leastRole, roleAllows, scopesAllow } from './access';
import { AuthService } from './auth.service';
import { AUTH_MESSAGES, WORKSPACE_FAILURES } from './principal';
import { needOf, RouteRules } from './route-rules';
import { WriterMark } from './writer-mark';

/**
 * Global guard, fail-closed: every route needs a valid API key (or a session, see AuthService)
 * unless marked `@Public()`. Then,
 * in the workspace the request acts in (AuthService): the route's need (RouteRules) against the
 * caller's role and, with a named key, its scopes; `@AdminOnly()` routes need an admin owner;
 * and a plan with `api.enabled = "0"` only reaches routes marked `@AllowWithoutApiAccess()`.
 * A request it lets through is handed to the writer mark (WriterMark.admit).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly rules: RouteRules,
    private readonly auth: AuthService,
    private readonly marks: WriterMark,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.rules.of(context.getHandler(), context.getClass());
    const req = context.switchToHttp().getRequest();
    if (rule.public) {
      // a key the rate limit resolved stands for its user on a public route too
      this.marks.admit(req);
      return true;
    }

    const result = await this.auth.resolve(req);
    if ('failure' in result) {
      const workspace = WORKSPACE_FAILURES[result.failure as keyof typeof WORKSPACE_FAILURES];
      if (workspace) throw new AppError(workspace.status, workspace.message);
      throw new UnauthorizedError(AUTH_MESSAGES[result.failure as keyof typeof AUTH_MESSAGES]);
    }
    const { principal } = result;

    // fail closed: a route without a declaration (RouteRules refuses to start with one) is the owner's
    const need = needOf(rule, req.method) ?? 'owner';
    if (!roleAllows(principal.role, need))
      throw new ForbiddenError(
        `This needs the role ${leastRole(need)} in this workspace; yours is ${principal.role}`,
      );
    if (principal.key && !scopesAllow(principal.key.scopes, need))
      throw new ForbiddenError(
        need === 'owner'
          ? 'This key lacks the scope *: only a key with every scope may do this'
          : `This key lacks the scope ${need}`,
      );
    if (rule.adminOnly && !principal.isAdmin) {
      throw new ForbiddenError('Admin privileges are required');
    }
    const apiEnabled = principal.plan.limits.api?.enabled === '1';
    // a plan without the API still signs in to the dashboard: the gate is about keys
    if (!principal.isAdmin && !apiEnabled && !rule.withoutApiAccess && !principal.session) {
      throw new ForbiddenError('Your plan does not include API access');
    }
    this.marks.admit(req);
    return true;
  }
}
