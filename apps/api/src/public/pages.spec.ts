import { campaignListPage } from '../campaigns/campaign-pages';
import { qrTextPage, qrWifiPage } from '../qr/qr-pages';
import { cspHash } from './html';
import { forwardPage, framePage, PAGES, passwordPage, splashPage } from './pages';

const styleAndScriptsAllowed = (page: { html: string; csp: string }) => {
  for (const [, body] of page.html.matchAll(/<(?:style|script)>([\s\S]*?)<\/(?:style|script)>/g)) {
    expect(page.csp).toContain(cspHash(body));
  }
};

describe('public pages', () => {
  it('every inline style and script is allowed by its hash, and nothing else is inline', () => {
    const pages = [
      ...Object.values(PAGES),
      passwordPage(true),
      forwardPage('https://t.example/', [{ type: 'vendor05pixel', tag: '42' }]),
      splashPage(
        'https://t.example/',
        { title: 'T', message: 'M', imageUrl: '', countdown: 4, buttonText: 'Go' },
        [],
      ),
      framePage(
        'https://t.example/',
        {
          type: 'message',
          message: 'm',
          buttonText: 'b',
          buttonLink: 'https://c.example/',
          bgColor: '#000000',
          textColor: '#ffffff',
          buttonColor: '#123456',
          position: 'tr',
        },
        [],
        'title',
      ),
      campaignListPage('c', [{ title: 't', shorturl: 'https://s.example/a' }]),
      qrTextPage('hello'),
      qrWifiPage({ ssid: 'net', pass: 'secret12', encryption: 'WPA' }),
    ];
    for (const page of pages) {
      styleAndScriptsAllowed(page);
      expect(page.html).not.toMatch(/\son[a-z]+=|style="|javascript:/i);
      expect(page.html.startsWith('<!doctype html>')).toBe(true);
    }
  });

  it('escapes the target everywhere it is printed', () => {
    const target = 'https://t.example/?a="><script>alert(1)</script>&b=1';
    for (const page of [
      forwardPage(target, []),
      framePage(target, null, [], ''),
      splashPage(
        target,
        { title: '', message: '', imageUrl: '', countdown: 0, buttonText: '' },
        [],
      ),
    ]) {
      expect(page.html).not.toContain('<script>alert');
      expect(page.html).toContain('&quot;&gt;&lt;script&gt;');
    }
  });

  it('a splash page with countdown 0 waits for the click: no refresh, no script', () => {
    const page = splashPage(
      'https://t.example/',
      { title: 'T', message: '', imageUrl: 'javascript:alert(1)', countdown: 0, buttonText: '' },
      [],
    );
    expect(page.html).not.toContain('http-equiv="refresh"');
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('javascript:');
    expect(page.html).toContain('>Continue</a>');
    expect(page.csp).not.toContain('script-src');
    expect(page.csp).not.toContain('img-src');
  });

  it('the overlay button needs an http(s) link; colours must be #RRGGBB', () => {
    const page = framePage(
      'https://t.example/',
      {
        type: 'message',
        message: 'm',
        buttonText: 'b',
        buttonLink: 'javascript:alert(1)',
        bgColor: 'red',
        textColor: '#fff',
        buttonColor: '#12345G',
        position: 'zz',
      },
      [],
      '',
    );
    expect(page.html).not.toContain('javascript:');
    expect(page.html).not.toContain('class="btn"');
    expect(page.html).toContain('background:#ffffff');
    expect(page.html).toContain('color:#000000');
    expect(page.html).toContain('left:1rem;bottom:1rem');
  });
});
