import { OpenAPIObject } from '@nestjs/swagger';

import { leastRole, Need, SCOPES } from '../auth/access';
import { SESSION_COOKIE } from '../auth/sessions';

/** The API key scheme: an opaque key in the Authorization header (`Bearer <key>` or `Token <key>`). */
export const API_KEY_SCHEME = 'apiKey';

/** The session scheme: the dashboard's cookie (`POST /auth/session`), on /api instead of a key. */
export const SESSION_SCHEME = 'cookieAuth';

/** The header a session's writes carry its CSRF token in (a global parameter, `XCsrfToken`). */
export const CSRF_PARAMETER = 'XCsrfToken';

/** Operation markers set by decorators (see `@Public()`), read and removed here. */
export const PUBLIC_MARKER = 'x-lm-public';

/** The OpenAPI extension naming what an operation needs (`links:write`, `owner`; access.ts). */
export const NEEDS_EXTENSION = 'x-needs';

/** The header a member names the workspace it acts in with (a global parameter, `XWorkspace`). */
export const WORKSPACE_PARAMETER = 'XWorkspace';

/**
 * What a route needs, as RouteRules reads it from its decorators: `{'get /api/url/{id}':
 * {need: 'links:read', adminOnly: false}}` (method in lower case, the document's path template).
 */
export type OperationNeeds = Record<string, { need: Need; adminOnly: boolean }>;

/** What the workspace layer adds to the failures of every secured /api operation. */
const WORKSPACE_ERRORS: Record<string, string> = {
  '400': '; or an `X-Workspace` that is not a positive integer',
  '401': '; or, without a key, no live session (`cookieAuth`)',
  '403':
    "; or beyond the caller's role in the workspace or the named key's scopes (the message names the role or scope needed); or, with a session, a change without its `X-CSRF-Token`",
  '404':
    '; or an `X-Workspace` naming a workspace the caller is not a member of (`Workspace not found (X-Workspace)`)',
};

const SESSION_DESCRIPTION = `The session of a person signed in with e-mail and password (\`POST /auth/session\`, the dashboard): an HttpOnly cookie, accepted by every /api operation instead of a key when the request has no Authorization header (a request with one is judged by the key alone). The session acts as the user's personal key would: its own workspace, or another with \`X-Workspace\` as a member; a plan without API access still signs in. Every /api request but GET, HEAD and OPTIONS carries \`X-CSRF-Token\` with the session's \`csrf\` (from \`POST\` or \`GET /auth/session\`); missing or wrong: 403 \`Missing or wrong X-CSRF-Token…\`. An ended or expired session: 401 \`Session expired or signed out: sign in again\`. CORS never allows credentials: only pages served by the api itself send the cookie.`;

const SCHEME_DESCRIPTION = `The API key, sent as \`Authorization: Bearer <API_KEY>\` or \`Authorization: Token <API_KEY>\` (the scheme word in any case). An opaque random key, not a JWT.

Two kinds of key: the personal key of a user (full access to their own workspace, and their role in the workspaces they are a member of, chosen with the \`X-Workspace\` header), and named keys (\`/api/keys\`), made for one workspace with scopes, never beyond their creator's role there.

Every operation says what it needs in \`x-needs\` and its description: \`<area>:read\` or \`<area>:write\`, or \`owner\`. Roles: \`viewer\` reads every area but \`keys\` and \`audit\`; \`editor\` also writes \`links\`, \`qr\`, \`bio\`, \`pages\` (overlays, splash pages), \`campaigns\`, \`channels\`, \`pixels\`, \`stats\`, \`import\`; \`admin\` also writes \`domains\`, \`webhooks\`, \`team\`, and reads and writes \`keys\` and \`audit\`; the owner also \`owner\` (account, plan, key rotation). Admin routes need an admin acting in their own workspace. Beyond the role: 403 \`This needs the role <role> in this workspace; yours is <role>\`.

Scopes of a named key: \`<area>:write\` covers \`<area>:read\`; \`*\` is everything its creator's role allows, and the only scope that reaches \`owner\` operations. Outside its scopes: 403 \`This key lacks the scope <scope>\`. The scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}.`;

/** The sentence an operation's description gets about what it needs. */
function needsText({ need, adminOnly }: { need: Need; adminOnly: boolean }): string {
  if (adminOnly)
    return 'Needs: an admin, acting in their own workspace (`x-needs: owner`); a named key needs the scope `*`.';
  if (need === 'owner')
    return "Needs: the workspace's owner (`x-needs: owner`); a named key needs the scope `*`.";
  const [area, access] = need.split(':');
  const scopes = access === 'read' ? [need, `${area}:write`, '*'] : [need, '*'];
  return `Needs \`${need}\`: the role ${leastRole(need)} or above in the workspace; a named key needs the scope ${scopes.map((s) => `\`${s}\``).join(', ')}.`;
}

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
  parameters?: Array<{ in?: string; schema?: Schema; $ref?: string }>;
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
export function finishOpenApiDocument(
  doc: OpenAPIObject,
  serverUrl: string,
  needs: OperationNeeds = {},
): OpenAPIObject {
  doc.servers = [{ url: serverUrl, description: 'This deployment (PUBLIC_URL)' }];
  const components = (doc.components ??= {});
  components.securitySchemes = {
    [API_KEY_SCHEME]: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: SCHEME_DESCRIPTION,
    },
    [SESSION_SCHEME]: {
      type: 'apiKey',
      in: 'cookie',
      name: SESSION_COOKIE,
      description: SESSION_DESCRIPTION,
    },
  };
  components.parameters = {
    ...components.parameters,
    [WORKSPACE_PARAMETER]: {
      name: 'X-Workspace',
      in: 'header',
      required: false,
      description:
        "The workspace to act in: its id (its owner's user id), for a member of it. Absent: the caller's own workspace (a named key: the workspace it was made for). Not a member → 404 `Workspace not found (X-Workspace)`; not a positive integer → 400.",
      schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
    },
    [CSRF_PARAMETER]: {
      name: 'X-CSRF-Token',
      in: 'header',
      required: false,
      description: `With a session (the \`${SESSION_SCHEME}\` cookie) instead of a key: required, the session's \`csrf\` token (from \`POST\` or \`GET /auth/session\`); missing or wrong → 403. Ignored with a key.`,
      schema: { type: 'string' },
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
      // /api takes a key or a session; nothing else is secured (the /auth routes are public)
      op.security = isPublic
        ? []
        : isApi
          ? [{ [API_KEY_SCHEME]: [] }, { [SESSION_SCHEME]: [] }]
          : [{ [API_KEY_SCHEME]: [] }];
      const needed = isPublic ? undefined : needs[`${method} ${path}`];
      if (needed) {
        op[NEEDS_EXTENSION] = needed.need;
        const said = needsText(needed);
        op.description = op.description ? `${String(op.description)}\n\n${said}` : said;
      }
      if (!isPublic && isApi) {
        op.parameters = [
          ...(op.parameters ?? []),
          { $ref: `#/components/parameters/${WORKSPACE_PARAMETER}` },
          // a session's writes carry their CSRF token
          ...(method === 'get' || method === 'head' || method === 'options'
            ? []
            : [{ $ref: `#/components/parameters/${CSRF_PARAMETER}` }]),
        ];
      }

      const statuses = ['500', '503'];
      if (!isPublic) statuses.push('401');
      if (isApi) statuses.push('403', '429');
      if (op.requestBody) statuses.push('400', '413', '415');
      if (/\{\w+\}/.test(path)) statuses.push('400', '404');
      if (!isPublic && isApi) statuses.push('400', '404');
      for (const status of statuses) op.responses[status] ??= errorResponse(status);
      if (!isPublic && isApi)
        for (const [status, said] of Object.entries(WORKSPACE_ERRORS)) {
          const response = op.responses[status];
          const text = String(response.description ?? ERROR_TEXT[status]);
          if (!text.includes(said)) response.description = `${text}${said}`;
        }
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
