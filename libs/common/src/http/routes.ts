import { Get, Type } from '@nestjs/common';
import { ApiOperation, ApiOperationOptions } from '@nestjs/swagger';

import { ApiErrors, ApiOkList, ApiOkMessage } from './openapi';
import { Stacked } from './stacked';

/**
 * `GET <path>`: a list, `{error: "0", data: {result, …, <key>: [model]}}` newest first (ApiOkList),
 * documented with `operation`; failures 400 (bad page query) and 403 (plan feature) unless
 * `errors` names others.
 */
export function ListRoute(
  path: string,
  key: string,
  model: Type<unknown>,
  operation: ApiOperationOptions,
  errors: number[] = [400, 403],
) {
  return Stacked(Get(path), ApiOperation(operation), ApiOkList(key, model), ApiErrors(...errors));
}

/**
 * A route (`Put(path)`, `Delete(path)`, `Post(path)`) that answers `{error: 0, message}`,
 * documented with `operation`; failures 400, 403 and 404 (the change of one of the caller's items
 * by id) unless `errors` names others.
 */
export function MessageRoute(
  route: MethodDecorator,
  operation: ApiOperationOptions,
  errors: number[] = [400, 403, 404],
) {
  return Stacked(route, ApiOperation(operation), ApiOkMessage(), ApiErrors(...errors));
}
