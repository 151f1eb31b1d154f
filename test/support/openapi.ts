import { createHash } from 'node:crypto';

import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import request from 'supertest';

/**
 * Response validation against the api's own OpenAPI document (`/docs-json`), for every response
 * an e2e suite sees through `TestApp.http()`: the status is documented for the operation, the body
 * matches that status's schema, and the rate-limit headers the response carries are declared (and
 * those declared required are there). The check is generic — any route in the document is checked,
 * those added later included — and records mismatches instead of throwing, so the test that made
 * the request still reports its own assertions; `test/support/openapi-setup.ts` fails the suite
 * when any were recorded, and `test/openapi.e2e-spec.ts` drives every route and status through it.
 */

type Schema = Record<string, unknown>;
interface ResponseObject {
  content?: Record<string, { schema?: Schema }>;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: Schema }>;
}
interface OperationObject {
  responses: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { headers?: Record<string, { required?: boolean; schema?: Schema }> };
  [key: string]: unknown;
}

export interface Mismatch {
  /** `GET /api/url/{id}` */
  operation: string;
  status: number;
  url: string;
  problem: string;
}

/** What a checked response looks like (a supertest / superagent response). */
export interface SeenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

const recorded: Mismatch[] = [];
const covered = new Set<string>();

/** Mismatches recorded so far in this test file, and forgets them. */
export function takeMismatches(): Mismatch[] {
  return recorded.splice(0, recorded.length);
}

/** `<METHOD> <template> <status>` of every checked response in this test file. */
export function coveredResponses(): ReadonlySet<string> {
  return covered;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * The document as the validator reads it: every object schema that lists its properties is closed
 * (`additionalProperties: false` unless it says otherwise), after `allOf` of objects (the envelope
 * `{error}` and a model) is merged into one object — so a field a route returns but the document
 * does not name is a mismatch, not silently accepted.
 */
function closed(doc: OpenApiDocument): OpenApiDocument {
  const copy = JSON.parse(JSON.stringify(doc)) as OpenApiDocument & {
    components?: { schemas?: Record<string, Schema> };
  };
  const components = copy.components?.schemas ?? {};
  const resolve = (s: Schema): Schema =>
    typeof s.$ref === 'string' ? resolve(components[s.$ref.split('/').pop() as string] ?? {}) : s;
  const merge = (node: Schema): void => {
    const parts = node.allOf as Schema[] | undefined;
    if (!Array.isArray(parts)) return;
    const resolved = parts.map(resolve);
    if (!resolved.every((p) => p.type === 'object' && p.properties && !p.allOf)) return;
    node.type = 'object';
    node.properties = Object.assign({}, ...resolved.map((p) => p.properties));
    node.required = [...new Set(resolved.flatMap((p) => (p.required as string[]) ?? []))];
    delete node.allOf;
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const s = node as Schema;
    if (s.nullable === true && (s.allOf || s.oneOf || s.anyOf)) {
      // `{type: object, allOf: [$ref], nullable: true}` (OpenAPI 3.0): ajv's `nullable` widens only
      // the `type` beside it, not the `$ref`, so null becomes a branch of its own
      const rest = { ...s };
      delete rest.nullable;
      for (const key of Object.keys(s)) delete s[key];
      s.anyOf = [rest, { type: 'null' }];
    }
    merge(s);
    if (s.type === 'object' && s.properties && s.additionalProperties === undefined)
      s.additionalProperties = false;
    Object.values(s).forEach(visit);
  };
  visit(copy.components);
  visit(copy.paths);
  return copy;
}

const escapePointer = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

/** Validates responses against one document; compiled schemas are cached per document. */
export class ResponseValidator {
  private static readonly byDigest = new Map<string, ResponseValidator>();
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: Array<{ method: string; template: string; pattern: RegExp }> = [];
  /** Header names the document defines (lower case): a response carrying one must declare it. */
  private readonly watchedHeaders: Set<string>;

  private constructor(readonly doc: OpenApiDocument) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ ...closed(doc), $id: 'openapi' } as Schema);
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const source = template
          .split(/\{\w+\}/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]+');
        this.routes.push({ method, template, pattern: new RegExp(`^${source}$`) });
      }
    }
    // literal paths first: /api/user/login/{id} before /api/user/{id}/...
    this.routes.sort(
      (a, b) => (a.template.match(/\{/g) ?? []).length - (b.template.match(/\{/g) ?? []).length,
    );
    this.watchedHeaders = new Set(
      [...Object.keys(doc.components?.headers ?? {}), 'Retry-After'].map((h) => h.toLowerCase()),
    );
  }

  /** The validator of the document `server` serves at /docs-json. */
  static async of(server: Parameters<typeof request>[0]): Promise<ResponseValidator> {
    const res = await request(server).get('/docs-json');
    if (res.status !== 200) throw new Error(`/docs-json answered ${res.status}`);
    const digest = createHash('sha1').update(res.text).digest('hex');
    let validator = ResponseValidator.byDigest.get(digest);
    if (!validator) {
      validator = new ResponseValidator(res.body as OpenApiDocument);
      ResponseValidator.byDigest.set(digest, validator);
    }
    return validator;
  }

  /** The documented operation a request reaches, or null (public side, unknown routes, HEAD, OPTIONS). */
  operationOf(method: string, path: string): { method: string; template: string } | null {
    const m = method.toLowerCase();
    const route = this.routes.find((r) => r.method === m && r.pattern.test(path));
    return route ? { method: route.method, template: route.template } : null;
  }

  private validatorAt(pointer: string): ValidateFunction {
    let fn = this.compiled.get(pointer);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `openapi#${pointer}` });
      this.compiled.set(pointer, fn);
    }
    return fn;
  }

  private resolveHeader(header: { $ref?: string; required?: boolean; schema?: Schema }) {
    if (!header.$ref) return header;
    const name = header.$ref.split('/').pop() as string;
    return this.doc.components?.headers?.[name] ?? {};
  }

  /** Problems of one response (empty when it matches the document). */
  check(method: string, url: string, res: SeenResponse): Mismatch[] {
    const path = new URL(url, 'http://x').pathname;
    const found = this.operationOf(method, path);
    if (!found) return [];
    const operation = `${found.method.toUpperCase()} ${found.template}`;
    covered.add(`${operation} ${res.status}`);
    const problems: string[] = [];
    const op = this.doc.paths[found.template][found.method];
    const key = op.responses[String(res.status)]
      ? String(res.status)
      : op.responses[`${String(res.status)[0]}XX`]
        ? `${String(res.status)[0]}XX`
        : op.responses.default
          ? 'default'
          : null;
    if (!key) {
      problems.push(`status ${res.status} is not documented`);
    } else {
      const response = op.responses[key];
      const base = `/paths/${escapePointer(found.template)}/${found.method}/responses/${escapePointer(key)}`;
      const contentType = String(res.headers['content-type'] ?? '');
      const schema = response.content?.['application/json']?.schema;
      const hasBody = (res.text ?? '') !== '';
      if (schema) {
        if (!contentType.includes('application/json'))
          problems.push(`expected a JSON body, got ${contentType || 'no content type'}`);
        else {
          const validate = this.validatorAt(`${base}/content/application~1json/schema`);
          if (!validate(res.body))
            problems.push(
              `body does not match: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })} in ${JSON.stringify(res.body).slice(0, 400)}`,
            );
        }
      } else if (hasBody && method.toUpperCase() !== 'HEAD') {
        // another documented media type (CSV exports): the type must be the documented one
        const media = contentType.split(';')[0].trim().toLowerCase();
        if (!media || !response.content?.[media])
          problems.push(`a ${contentType} body is not documented`);
      }
      const declared = Object.fromEntries(
        Object.entries(response.headers ?? {}).map(([name, h]) => [
          name.toLowerCase(),
          this.resolveHeader(h),
        ]),
      );
      for (const name of Object.keys(res.headers)) {
        const lower = name.toLowerCase();
        if (this.watchedHeaders.has(lower) && !declared[lower])
          problems.push(`header ${name} is not declared`);
      }
      for (const [name, header] of Object.entries(declared)) {
        const value = res.headers[name];
        if (value === undefined) {
          if (header.required) problems.push(`declared required header ${name} is missing`);
          continue;
        }
        const type = (header.schema as { type?: string } | undefined)?.type;
        if (type === 'integer' && !/^\d+$/.test(String(value)))
          problems.push(`header ${name}: ${JSON.stringify(value)} is not an integer`);
      }
    }
    return problems.map((problem) => ({ operation, status: res.status, url: path, problem }));
  }

  /** Checks a response and records its problems for the suite's end. */
  record(method: string, url: string, res: SeenResponse): void {
    recorded.push(...this.check(method, url, res));
  }
}

type Agent = ReturnType<typeof request>;

/**
 * A supertest agent whose every request is checked by `validator` when its response arrives.
 * Same shape as `request(server)`.
 */
export function validatingAgent(agent: Agent, validator: ResponseValidator): Agent {
  return new Proxy(agent, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !METHODS.includes(prop) || typeof value !== 'function')
        return value;
      return (url: string, ...rest: unknown[]) => {
        const test = (value as (...a: unknown[]) => request.Test).call(target, url, ...rest);
        test.on('response', (res: request.Response) =>
          validator.record(prop, url, {
            status: res.status,
            headers: res.headers,
            body: res.body,
            text: res.text,
          }),
        );
        return test;
      };
    },
  });
}

/** A readable list of mismatches, one a line, for failure messages. */
export function formatMismatches(mismatches: Mismatch[]): string {
  const lines = [...new Set(mismatches.map((m) => `${m.operation} → ${m.status}: ${m.problem}`))];
  return `${lines.length} response(s) do not match the OpenAPI document:\n${lines.slice(0, 50).join('\n')}`;
}
