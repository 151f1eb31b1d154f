import { jsonBodyProblem, MAX_JSON_DEPTH } from './json-body.middleware';

function nested(depth: number, leaf: unknown = 'x'): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('jsonBodyProblem', () => {
  it('accepts documented shapes, paired surrogates (emoji) included', () => {
    expect(jsonBodyProblem({ url: 'https://e.example/💥', geotarget: [{ location: 'FR' }] })).toBe(
      null,
    );
    expect(jsonBodyProblem({ name: nested(MAX_JSON_DEPTH - 1) })).toBeNull();
  });

  it('names the top field of a body nested too deeply, without recursing', () => {
    expect(jsonBodyProblem({ name: nested(MAX_JSON_DEPTH) })).toBe(
      `name: nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
    const deep = JSON.parse(`{"name":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expect(jsonBodyProblem(deep)).toMatch(/^name: nested deeper/);
  });

  it('names the field holding a lone surrogate, in values and keys', () => {
    expect(jsonBodyProblem({ email: 'a\uD800@example.com' })).toBe(
      'email: must be valid Unicode text (lone UTF-16 surrogate)',
    );
    expect(jsonBodyProblem({ data: { ssid: '\uDFFF' } })).toMatch(/^data\.ssid: /);
    expect(jsonBodyProblem({ urls: [{ title: 'ok' }, { title: 'x\uDC00' }] })).toMatch(
      /^urls\[1\]\.title: /,
    );
    expect(jsonBodyProblem({ ['k\uD800']: 1 })).toMatch(/field names must be valid Unicode/);
  });
});
