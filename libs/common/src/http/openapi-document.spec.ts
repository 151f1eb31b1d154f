import { OpenAPIObject } from '@nestjs/swagger';

import { SCOPES } from '../auth/access';
import {
  BODY_CONTENT_MARKER,
  finishOpenApiDocument,
  NEEDS_EXTENSION,
  PUBLIC_MARKER,
} from './openapi-document';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function docWith(schemas: Record<string, unknown>, operation: Record<string, unknown> = {}) {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/api/thing': { post: { responses: { '200': { description: 'ok' } }, ...operation } },
    },
    components: { schemas },
  } as unknown as OpenAPIObject;
}

describe('finishOpenApiDocument', () => {
  it('a nullable reference keeps a type beside nullable and no null-only branch', () => {
    const doc = finishOpenApiDocument(
      docWith({
        Prices: { type: 'object', properties: { monthly: { type: 'integer' } } },
        Plan: {
          type: 'object',
          properties: {
            a: { allOf: [ref('Prices')], nullable: true, description: 'A' },
            b: { type: 'object', allOf: [ref('Prices')], nullable: true },
            c: { ...ref('Prices'), nullable: true },
          },
        },
      }),
      'http://x.test',
    );
    const props = (doc.components?.schemas?.Plan as { properties: Record<string, unknown> })
      .properties;
    expect(props.a).toEqual({
      type: 'object',
      allOf: [ref('Prices')],
      nullable: true,
      description: 'A',
    });
    expect(props.b).toEqual({ type: 'object', allOf: [ref('Prices')], nullable: true });
    expect(props.c).toEqual({ type: 'object', allOf: [ref('Prices')], nullable: true });
  });

  it('a nullable union of scalars carries nullable on its last typed branch, a copy', () => {
    const shared = { type: 'string' };
    const doc = finishOpenApiDocument(
      docWith({
        Update: {
          type: 'object',
          properties: {
            domain: { oneOf: [{ type: 'integer' }, shared], nullable: true },
            plain: shared,
          },
        },
      }),
      'http://x.test',
    );
    const props = (doc.components?.schemas?.Update as { properties: Record<string, unknown> })
      .properties;
    expect(props.domain).toEqual({
      oneOf: [{ type: 'integer' }, { type: 'string', nullable: true }],
    });
    expect(props.plain).toEqual({ type: 'string' });
  });

  it('a body declared per media type gets a schema for each, and the marker goes', () => {
    const doc = finishOpenApiDocument(
      docWith(
        { Links: { type: 'object', properties: { links: { type: 'array' } } } },
        {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          [BODY_CONTENT_MARKER]: {
            'text/csv': { schema: { type: 'string' } },
            'application/json': { schema: ref('Links') },
          },
        },
      ),
      'http://x.test',
    );
    const op = (doc.paths['/api/thing'] as Record<string, Record<string, unknown>>).post;
    expect(op[BODY_CONTENT_MARKER]).toBeUndefined();
    expect(op.requestBody).toEqual({
      required: true,
      content: {
        'text/csv': { schema: { type: 'string' } },
        'application/json': { schema: ref('Links') },
      },
    });
    // the JSON model is a request body: closed to unknown fields
    expect(doc.components?.schemas?.Links).toEqual(
      expect.objectContaining({ additionalProperties: false }),
    );
  });

  it('says what each secured operation needs, and the X-Workspace header with its 400 and 404', () => {
    const doc = finishOpenApiDocument(
      {
        openapi: '3.0.0',
        info: { title: 't', version: '1' },
        paths: {
          '/api/thing/{id}': {
            get: { description: 'Reads it.', responses: { '200': { description: 'ok' } } },
            put: { responses: { '200': { description: 'ok' } } },
          },
          '/api/admin/thing': { get: { responses: { '200': { description: 'ok' } } } },
          '/health': { get: { responses: { '200': {} }, [PUBLIC_MARKER]: true } },
        },
      } as unknown as OpenAPIObject,
      'http://x.test',
      {
        'get /api/thing/{id}': { need: 'links:read', adminOnly: false },
        'put /api/thing/{id}': { need: 'domains:write', adminOnly: false },
        'get /api/admin/thing': { need: 'owner', adminOnly: true },
      },
    );
    const op = (path: string, method: string) =>
      (doc.paths[path] as Record<string, Record<string, unknown>>)[method] as {
        description?: string;
        parameters?: unknown[];
        responses: Record<string, { description: string }>;
        [key: string]: unknown;
      };
    const read = op('/api/thing/{id}', 'get');
    expect(read[NEEDS_EXTENSION]).toBe('links:read');
    expect(read.description).toBe(
      'Reads it.\n\nNeeds `links:read`: the role viewer or above in the workspace; a named key needs the scope `links:read`, `links:write`, `*`.',
    );
    expect(op('/api/thing/{id}', 'put').description).toBe(
      'Needs `domains:write`: the role admin or above in the workspace; a named key needs the scope `domains:write`, `*`.',
    );
    expect(op('/api/admin/thing', 'get')[NEEDS_EXTENSION]).toBe('owner');
    expect(op('/api/admin/thing', 'get').description).toMatch(/^Needs: an admin/);
    for (const [path, method] of [
      ['/api/thing/{id}', 'get'],
      ['/api/admin/thing', 'get'],
    ]) {
      const o = op(path, method);
      expect(o.parameters).toEqual([{ $ref: '#/components/parameters/XWorkspace' }]);
      expect(o.responses['404'].description).toMatch(/X-Workspace/);
      expect(o.responses['400'].description).toMatch(/X-Workspace/);
      expect(o.responses['403'].description).toMatch(/role .* scopes/);
    }
    const open = op('/health', 'get');
    expect([open[NEEDS_EXTENSION], open.parameters, open.responses['404']]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(doc.components?.parameters?.XWorkspace).toMatchObject({
      name: 'X-Workspace',
      in: 'header',
      required: false,
    });
    const scheme = doc.components?.securitySchemes?.apiKey as { description: string };
    for (const scope of SCOPES) expect(scheme.description).toContain(`\`${scope}\``);
  });
});
