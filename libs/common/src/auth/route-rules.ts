import { Injectable, OnApplicationBootstrap, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';

import { OperationNeeds } from '../http/openapi-document';
import { Area, Need } from './access';
import { ADMIN_ONLY, AREA, IS_PUBLIC, NEEDS, WITHOUT_API_ACCESS } from './decorators';

/** What a route's decorators say about who may call it (read once per handler). */
export interface RouteRule {
  public: boolean;
  adminOnly: boolean;
  withoutApiAccess: boolean;
  /** `@Needs` on the method or class. */
  need?: Need;
  /** `@ForArea` on the class: the need follows the method. */
  area?: Area;
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The need of a route for a request method; undefined when the route declares none. */
export function needOf(rule: RouteRule, method: string): Need | undefined {
  if (rule.need) return rule.need;
  if (rule.area) return `${rule.area}:${READ_METHODS.has(method) ? 'read' : 'write'}`;
  if (rule.adminOnly) return 'owner';
  return undefined;
}

/** A route's HTTP method as Nest records it (RequestMethod) → its name. */
const methodName = (m: RequestMethod) => RequestMethod[m];

/**
 * The rules of every route, read from its decorators once (the guard asks per request), and the
 * check at start that every route declares them: a route neither `@Public()` nor resolving to a
 * need (`@Needs`, `@ForArea`, `@AdminOnly`) stops the api from starting, naming the route.
 */
@Injectable()
export class RouteRules implements OnApplicationBootstrap {
  private readonly memo = new WeakMap<object, RouteRule>();

  constructor(
    private readonly reflector: Reflector,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  of(handler: object, controller: Type<unknown>): RouteRule {
    let rule = this.memo.get(handler);
    if (!rule) {
      const targets = [handler as () => void, controller];
      rule = {
        public: !!this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets),
        adminOnly: !!this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets),
        withoutApiAccess: !!this.reflector.getAllAndOverride<boolean>(WITHOUT_API_ACCESS, targets),
        need: this.reflector.getAllAndOverride<Need>(NEEDS, targets),
        area: this.reflector.get<Area>(AREA, controller),
      };
      this.memo.set(handler, rule);
    }
    return rule;
  }

  /** Every route: `METHOD /path` with its rule. */
  routes(): Array<{ route: string; method: string; rule: RouteRule }> {
    const out: Array<{ route: string; method: string; rule: RouteRule }> = [];
    for (const wrapper of this.discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = proto[name] as object;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = methodName(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod);
        const full = `/${[base, path]
          .map((p) => p.replace(/^\/|\/$/g, ''))
          .filter(Boolean)
          .join('/')}`;
        out.push({
          route: `${method} ${full}`,
          method,
          rule: this.of(handler, metatype as Type<unknown>),
        });
      }
    }
    return out;
  }

  /**
   * What every non-public route needs, keyed as the OpenAPI document names its operation
   * (`get /api/url/{id}`), for finishOpenApiDocument (`x-needs`, the operation's description).
   */
  operationNeeds(): OperationNeeds {
    const out: OperationNeeds = {};
    for (const { route, method, rule } of this.routes()) {
      const need = needOf(rule, method);
      if (rule.public || !need) continue;
      const path = route.slice(method.length + 1).replace(/:(\w+)/g, '{$1}');
      out[`${method.toLowerCase()} ${path}`] = { need, adminOnly: rule.adminOnly };
    }
    return out;
  }

  onApplicationBootstrap(): void {
    const undeclared = this.routes()
      .filter((r) => !r.rule.public && !needOf(r.rule, r.method))
      .map((r) => r.route);
    if (undeclared.length)
      throw new Error(
        `Routes without a declared need (@Public, @Needs, @ForArea or @AdminOnly): ${undeclared.join(', ')}`,
      );
  }
}
