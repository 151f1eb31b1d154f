import { cspHash } from '../public/html';
import { bioPage } from './bio-page';

const content = {
  name: 'Name',
  description: 'About me',
  avatar: 'https://cdn.example/me.png',
  theme: 'light',
  links: [
    { n: 0, title: 'First', url: 'https://a.example/' },
    { n: 2, title: 'Third', url: 'https://c.example/' },
  ],
  socials: { github: 'https://gh.example/me', x: 'https://x.example/me' },
};

describe('bio page', () => {
  it('allows its two style blocks by hash, the avatar origin for images, and nothing else', () => {
    const page = bioPage(content, 'Title');
    const styles = [...page.html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    expect(styles).toHaveLength(2);
    expect(page.csp).toBe(
      `default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src ${styles
        .map(cspHash)
        .join(' ')}; img-src https://cdn.example; form-action 'none'`,
    );
    expect(page.html).not.toMatch(/<script|\son[a-z]+=|style="/i);
  });

  it('links each button and social link through ?go=, keeping the stored position, socials in a fixed order', () => {
    const { html } = bioPage(content, 'Title');
    expect(html).toContain('<h1>Title</h1>');
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual(['?go=0', '?go=2', '?go=x', '?go=github']);
    expect(html).not.toContain('https://a.example/');
  });

  it('the name is the heading when untitled; no avatar, no img-src; dark theme', () => {
    const page = bioPage({ ...content, avatar: '', theme: 'dark', links: [], socials: {} }, '');
    expect(page.html).toContain('<h1>Name</h1>');
    expect(page.html).toContain('No links yet.');
    expect(page.html).toContain('background:#0d1117');
    expect(page.html).not.toContain('<img');
    expect(page.csp).not.toContain('img-src');
  });

  it('escapes every field', () => {
    const x = `<script>alert(1)</script>"'`;
    const { html } = bioPage(
      {
        ...content,
        name: x,
        description: x,
        avatar: `https://cdn.example/a.png?"><script>`,
        links: [{ n: 0, title: x, url: 'https://a.example/' }],
      },
      x,
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;');
  });
});
