import { OpenAPIObject } from '@nestjs/swagger';

/** The API key scheme: an opaque key in the Authorization header (`Bearer <key>` or `Token <key>`). */
export const API_KEY_SCHEME = 'apiKey';

/** Operation markers set by decorators (see `@Public()`), read and removed here. */
export const PUBLIC_MARKER = 'x-lm-public';

/**
 * A request body with one schema per media type (see `ApiBodyPerType`), read and removed here:
 * @nestjs/swagger's ApiBody gives every consumed media type the same schema.
 */
export const BODY_CONTENT_MARKER = 'x-lm-body-content';

/** Rate-limit headers every /api response carries (errors and 401s included). */
const RATE_HEADERS = {
  'X-RateLimit-Limit': 'Requests allowed per window (RATE_LIMIT, default 3000)',
  'X-RateLimit-Remaining': 'Requests left in the current window (never below 0)',
  'X-RateLimit-Reset': 'End of the current window, Unix epoch seconds',
};

const ERROR_TEXT: Record<string, string> = {
  '400': 'Invalid field or malformed JSON (the message names the field)',
  '401': 'Missing, unknown or expired API key',
  '403': 'Not an admin, plan feature disabled or plan limit reached (the message names it)',
  '404': 'Unknown id, or an id that belongs to another user',
  '405': 'A method the path does not have: `Allow` lists those it has, the message the route meant',
  '413': 'Body larger than 1 MB',
  '415': 'Body not in UTF-8',
  '429': 'Rate limit exceeded: retry after Retry-After seconds',
  '500': 'Unexpected error (generic message)',
  '503': 'A dependency (Postgres, Redis) is down',
};

type Schema = Record<string, unknown>;
type Operation = {
  responses: Record<string, Record<string, unknown>>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  parameters?: Array<{ in: string; schema?: Schema }>;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function walk(node: unknown, visit: (schema: Schema) => void): void {
  if (Array.isArray(node)) return node.forEach((n) => walk(n, visit));
  if (!node || typeof node !== 'object') return;
  visit(node as Schema);
  for (const value of Object.values(node)) walk(value, visit);
}

/**
 * Finishes the document @nestjs/swagger builds so that it says what the api really does, for every
 * route (those added later included), so that generated clients compile and every response validates:
 *
 * - a body declared per media type (`ApiBodyPerType`) gets its own schema for each;
 * - `servers` is PUBLIC_URL; the security scheme is an opaque API key in `Authorization` (Bearer or
 *   Token), required on every operation but the `@Public()` ones (`security: []`);
 * - statuses every route can answer, from the cross-cutting layers: 401 (key guard), 403 (admin,
 *   plan gate) and 429 (rate limit) on /api routes, 400 / 413 / 415 on routes with a body, 400 / 404
 *   on routes with path ids, 500 and 503 everywhere, all as `{error: 1, message}`;
 * - X-RateLimit-* on every /api response and Retry-After on 429;
 * - request bodies refuse unknown fields (`additionalProperties: false`), as the validation pipe does,
 *   and their defaults are written in descriptions (a generated client must not require them);
 * - numbers are integers unless declared `format: float | double` (ids, counts, limits);
 * - a nullable reference is `{type: object, allOf: [$ref], nullable: true}` and a nullable union of
 *   scalars carries `nullable` on one typed branch: `nullable` always beside a `type` (redocly), and
 *   no null-only branch without a type (orval renders one as an empty member, `X |  | null`).
 */
export function finishOpenApiDocument(doc: OpenAPIObject, serverUrl: string): OpenAPIObject {
  doc.servers = [{ url: serverUrl, description: 'This deployment (PUBLIC_URL)' }];
  const components = (doc.components ??= {});
  components.securitySchemes = {
    [API_KEY_SCHEME]: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        'The API key, sent as `Authorization: Bearer <API_KEY>` or `Authorization: Token <API_KEY>` (the scheme word in any case). An opaque random key, not a JWT.',
    },
  };
  const schemas = (components.schemas ??= {}) as Record<string, Schema>;
  schemas.ErrorResponse = {
    type: 'object',
    properties: {
      error: { type: 'integer', enum: [1] },
      message: { type: 'string', description: 'What went wrong, naming the field' },
    },
    required: ['error', 'message'],
    additionalProperties: false,
  };
  components.headers = {
    ...Object.fromEntries(
      Object.entries(RATE_HEADERS).map(([name, description]) => [
        name,
        { description, required: true, schema: { type: 'integer', minimum: 0 } },
      ]),
    ),
    'Retry-After': {
      description: 'Seconds until the window ends',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  };
  const errorResponse = (status: string) => ({
    description: ERROR_TEXT[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
  });
  // answered by every path for the methods it does not list (so on no operation of its own)
  components.responses = {
    ...components.responses,
    MethodNotAllowed: {
      ...errorResponse('405'),
      headers: {
        Allow: {
          description: 'The methods of the path, e.g. `GET, HEAD`',
          required: true,
          schema: { type: 'string' },
        },
      },
    },
  };

  const bodySchemas = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const isApi = path.startsWith('/api/');
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (!op) continue;
      const content = op[BODY_CONTENT_MARKER] as Record<string, { schema: Schema }> | undefined;
      delete op[BODY_CONTENT_MARKER];
      if (content) op.requestBody = { ...op.requestBody, content };
      const isPublic = op[PUBLIC_MARKER] === true;
      delete op[PUBLIC_MARKER];
      op.security = isPublic ? [] : [{ [API_KEY_SCHEME]: [] }];

      const statuses = ['500', '503'];
      if (!isPublic) statuses.push('401');
      if (isApi) statuses.push('403', '429');
      if (op.requestBody) statuses.push('400', '413', '415');
      if (/\{\w+\}/.test(path)) statuses.push('400', '404');
      for (const status of statuses) op.responses[status] ??= errorResponse(status);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) >= 400 && !response.content)
          Object.assign(response, errorResponse(status));
        if (!response.description) response.description = status === '200' ? 'Success' : 'Error';
        if (!isApi) continue;
        const headers = (response.headers ??= {}) as Record<string, unknown>;
        for (const name of Object.keys(RATE_HEADERS))
          headers[name] = { $ref: `#/components/headers/${name}` };
        if (status === '429') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
      }
      walk(op.requestBody, (s) => {
        if (typeof s.$ref === 'string') bodySchemas.add(s.$ref.split('/').pop() as string);
      });
    }
  }

  // request bodies (and the objects inside them) refuse unknown fields, as the validation pipe does
  const pending = [...bodySchemas];
  while (pending.length) {
    const name = pending.pop() as string;
    walk(schemas[name], (s) => {
      if (typeof s.$ref !== 'string') return;
      const ref = s.$ref.split('/').pop() as string;
      if (!bodySchemas.has(ref)) {
        bodySchemas.add(ref);
        pending.push(ref);
      }
    });
  }
  for (const name of bodySchemas) {
    walk(schemas[name], (s) => {
      if (s.type === 'object' && s.properties && s.additionalProperties === undefined)
        s.additionalProperties = false;
      // a request field with a default is still optional: generators (openapi-typescript) make
      // fields with a `default` required, so the default is written in the description instead
      if (s.default !== undefined && !Array.isArray(s.properties)) {
        const said = `Default: ${JSON.stringify(s.default)}.`;
        s.description = s.description ? `${String(s.description)} ${said}` : said;
        delete s.default;
      }
    });
  }

  walk(doc, (s) => {
    if (s.type === 'number' && s.format !== 'float' && s.format !== 'double') s.type = 'integer';
    if (s.nullable !== true) return;
    if (typeof s.$ref === 'string') {
      // OpenAPI 3.0 ignores the siblings of a $ref: wrap it
      s.allOf = [{ $ref: s.$ref }];
      delete s.$ref;
    }
    if (s.type !== undefined) return;
    const branches = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    const last = branches?.map((b) => b.type !== undefined).lastIndexOf(true) ?? -1;
    if (branches && last >= 0) {
      // a union of scalars: null joins one typed branch (one only, so a `oneOf` stays exclusive);
      // a copy, as branch objects may be shared with other schemas
      branches[last] = { ...branches[last], nullable: true };
      delete s.nullable;
    } else if (Array.isArray(s.allOf) && s.allOf.length === 1) {
      // a nullable reference: `nullable` needs its `type` beside it (redocly)
      const ref = String((s.allOf[0] as Schema).$ref ?? '')
        .split('/')
        .pop() as string;
      s.type = (schemas[ref]?.type as string | undefined) ?? 'object';
    }
  });
  return doc;
}
