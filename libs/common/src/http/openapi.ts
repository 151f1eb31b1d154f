import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

const ERROR_SCHEMA = {
  type: 'object',
  properties: { error: { type: 'integer', example: 1 }, message: { type: 'string' } },
  required: ['error', 'message'],
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid field or malformed JSON (the message names the field)',
  401: 'Missing, unknown or expired API key',
  403: 'Not an admin, plan feature disabled or plan limit reached',
  404: 'Unknown id, or an id that belongs to another user',
  409: 'Duplicate value',
  410: 'Expired or already used',
  413: 'Body larger than 1 MB',
  429: 'Rate limit exceeded (see Retry-After)',
};

/** Documents `{error: 1, message}` failures with the given statuses (401 and 429 are always added). */
export function ApiErrors(...statuses: number[]) {
  const all = [...new Set([...statuses, 401, 429])].sort();
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({ status, description: ERROR_TEXT[status] ?? 'Error', schema: ERROR_SCHEMA }),
    ),
  );
}

/** 200 `{error: 0, <fields of model>}`, e.g. creation bodies `{error, id, ...}`. */
export function ApiOkFields(model: Type<unknown>) {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      schema: {
        allOf: [
          { type: 'object', properties: { error: { type: 'integer', example: 0 } } },
          { $ref: getSchemaPath(model) },
        ],
      },
    }),
  );
}

/** 200 `{error: 0, data: <model>}` (or `data: [<model>]` with `isArray`). */
export function ApiOkData(model: Type<unknown>, isArray = false) {
  const ref = { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      schema: {
        type: 'object',
        properties: {
          error: { type: 'integer', example: 0 },
          data: isArray ? { type: 'array', items: ref } : ref,
        },
      },
    }),
  );
}

/** 200 `{error: 0, message}`. */
export function ApiOkMessage() {
  return ApiResponse({
    status: 200,
    schema: {
      type: 'object',
      properties: { error: { type: 'integer', example: 0 }, message: { type: 'string' } },
    },
  });
}

/** 200 list envelope `{error: "0", data: {result, perpage, currentpage, nextpage, maxpage, <key>: [model]}}`. */
export function ApiOkList(key: string, model: Type<unknown>) {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      description:
        'Newest first. nextpage is 0 on the last page; maxpage = max(1, ceil(result / perpage)).',
      schema: {
        type: 'object',
        properties: {
          error: { type: 'string', example: '0' },
          data: {
            type: 'object',
            properties: {
              result: { type: 'integer', description: 'items matching across all pages' },
              perpage: { type: 'integer' },
              currentpage: { type: 'integer' },
              nextpage: { type: 'integer' },
              maxpage: { type: 'integer' },
              [key]: { type: 'array', items: { $ref: getSchemaPath(model) } },
            },
          },
        },
      },
    }),
  );
}
