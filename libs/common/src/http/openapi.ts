import { applyDecorators, Type } from '@nestjs/common';
import { ApiBody, ApiExtension, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import {
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

import { BODY_CONTENT_MARKER } from './openapi-document';

/** `{error: 1, message}`, defined once by finishOpenApiDocument. */
const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponse' };

/** `error: 0` of every success body but lists. */
const ERROR_ZERO = { type: 'integer', enum: [0], example: 0 };

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

/**
 * Documents `{error: 1, message}` failures with the given statuses. The statuses of the
 * cross-cutting layers (401, 403, 429 on /api; 400, 413, 415 with a body; 400, 404 with path
 * ids; 500, 503) are added to every operation by finishOpenApiDocument.
 */
export function ApiErrors(...statuses: number[]) {
  const all = [...new Set(statuses)].sort();
  return applyDecorators(
    ...all.map((status) =>
      ApiResponse({ status, description: ERROR_TEXT[status] ?? 'Error', schema: ERROR_SCHEMA }),
    ),
  );
}

/**
 * A request body with a schema per media type (`{'text/csv': {type: 'string'}, 'application/json':
 * {$ref}}`), so that a generated client sends each in its own form (ApiBody alone would give every
 * media type one `oneOf` of all: clients then JSON-encode a CSV text). Models referenced by
 * `getSchemaPath` need their `ApiExtraModels`.
 */
export function ApiBodyPerType(
  description: string,
  content: Record<string, SchemaObject | ReferenceObject>,
) {
  return applyDecorators(
    ApiBody({ description, required: true, schema: { type: 'object' } }),
    ApiExtension(
      BODY_CONTENT_MARKER,
      Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])),
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
          { type: 'object', properties: { error: ERROR_ZERO }, required: ['error'] },
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
          error: ERROR_ZERO,
          data: isArray ? { type: 'array', items: ref } : ref,
        },
        required: ['error', 'data'],
        additionalProperties: false,
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
      properties: { error: ERROR_ZERO, message: { type: 'string' } },
      required: ['error', 'message'],
      additionalProperties: false,
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
          error: { type: 'string', enum: ['0'], example: '0' },
          data: {
            type: 'object',
            properties: {
              result: { type: 'integer', description: 'items matching across all pages' },
              perpage: { type: 'integer' },
              currentpage: { type: 'integer' },
              nextpage: { type: 'integer', description: 'the next page, 0 on the last one' },
              maxpage: { type: 'integer' },
              [key]: { type: 'array', items: { $ref: getSchemaPath(model) } },
            },
            required: ['result', 'perpage', 'currentpage', 'nextpage', 'maxpage', key],
            additionalProperties: false,
          },
        },
        required: ['error', 'data'],
        additionalProperties: false,
      },
    }),
  );
}
