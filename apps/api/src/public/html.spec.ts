import { createHash } from 'node:crypto';

import { contentSecurityPolicy, cspHash, escapeHtml, escaped, originOf, SafeHtml } from './html';

describe('html', () => {
  it('escapeHtml escapes the five special characters and stringifies anything', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(42)).toBe('42');
    expect(escapeHtml('plain text')).toBe('plain text');
  });

  it('escaped escapes interpolations, joins arrays, keeps SafeHtml and drops empty values', () => {
    const evil = '<script>alert("x")</script>';
    const inner = escaped`<b>${evil}</b>`;
    expect(inner).toBeInstanceOf(SafeHtml);
    expect(
      escaped`<p title="${evil}">${inner}${['<', escaped`<i>ok</i>`]}${null}${undefined}${false}</p>`
        .value,
    ).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"><b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</b>&lt;<i>ok</i></p>',
    );
    expect(escaped`${0}`.value).toBe('0');
  });

  it('cspHash is the base64 sha256 of the source', () => {
    const digest = createHash('sha256').update('a{b:c}').digest('base64');
    expect(cspHash('a{b:c}')).toBe(`'sha256-${digest}'`);
  });

  it('contentSecurityPolicy denies by default and allows only what the page declares', () => {
    expect(contentSecurityPolicy([], [])).toBe(
      "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
    const csp = contentSecurityPolicy(['s'], ['j'], {
      img: ['https://a.example', 'https://a.example'],
      frame: ['https://f.example'],
      formAction: ["'self'"],
    });
    expect(csp).toBe(
      `default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src ${cspHash('s')}; script-src ${cspHash('j')}; ` +
        "img-src https://a.example; frame-src https://f.example; form-action 'self'",
    );
  });

  it('originOf: http(s) origins only', () => {
    expect(originOf('https://Example.com:8443/x?y')).toBe('https://example.com:8443');
    expect(originOf('http://example.com/')).toBe('http://example.com');
    expect(originOf('javascript:alert(1)')).toBeNull();
    expect(originOf('not a url')).toBeNull();
    expect(originOf("https://a;b'.example/")).toBeNull();
    expect(originOf('https://a_b.example/')).toBeNull();
  });
});
