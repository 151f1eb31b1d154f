import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

import { PUBLIC_MARKER } from '../http/openapi-document';

import { Area, Need } from './access';
import { Principal } from './principal';

export const IS_PUBLIC = 'auth:public';
export const ADMIN_ONLY = 'auth:admin';
export const WITHOUT_API_ACCESS = 'auth:without-api-access';
export const NEEDS = 'auth:needs';
export const AREA = 'auth:area';
export const PRINCIPAL = Symbol('principal');

/**
 * The route needs no API key (health, docs, login-link redemption); its OpenAPI operation gets
 * `security: []` and no 401 (finishOpenApiDocument reads the marker).
 */
export const Public = () =>
  applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_MARKER, true));

/**
 * The route is for admins only: a valid non-admin key gets 403. It needs the workspace's owner
 * too (an admin acting in another's workspace is not an admin there) and, with a named key, `*`.
 */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

/**
 * What a route needs in the workspace it acts in (access.ts): `@Needs('links:write')`, or
 * `@Needs('owner')`. On a method it overrides its controller's `@Area`.
 */
export const Needs = (need: Need) => SetMetadata(NEEDS, need);

/**
 * The area of a controller's routes: GET and HEAD need `<area>:read`, other methods
 * `<area>:write`. Every non-public route resolves to a need (RouteNeeds checks it at start).
 */
export const ForArea = (area: Area) => SetMetadata(AREA, area);

/** The route stays open to users whose plan has the API disabled (only GET /api/account). */
export const AllowWithoutApiAccess = () => SetMetadata(WITHOUT_API_ACCESS, true);

/** Hands the authenticated caller to a handler: `@Auth() auth: Principal`. */
export const Auth = createParamDecorator((_data: unknown, ctx: ExecutionContext): Principal => {
  const req = ctx.switchToHttp().getRequest();
  return req[PRINCIPAL];
});
