import { OpenAPIObject } from '@nestjs/swagger';

import { BODY_CONTENT_MARKER, finishOpenApiDocument } from './openapi-document';

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
});
