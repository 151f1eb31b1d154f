import { resolve } from 'node:path';

import {
  assetPath,
  contrastRatio,
  formatRgb,
  isPublicAddress,
  parseLogoSource,
  parseRgb,
  QR_CODE_PATTERN,
  qrImagePath,
  rgbToHex,
} from './index';

describe('@app/qr', () => {
  describe('colours', () => {
    it('parses rgb(R,G,B) 0-255, spaces allowed, and formats it canonically', () => {
      expect(parseRgb('rgb(0,0,0)')).toEqual({ r: 0, g: 0, b: 0 });
      expect(parseRgb('rgb( 255 , 10,7 )')).toEqual({ r: 255, g: 10, b: 7 });
      expect(formatRgb(parseRgb('rgb( 1, 2 ,3)')!)).toBe('rgb(1,2,3)');
      expect(rgbToHex({ r: 255, g: 10, b: 0 })).toBe('#ff0a00');
    });

    it.each([
      'rgb(256,0,0)',
      'rgb(0,0)',
      'rgba(0,0,0,1)',
      '#000000',
      'rgb(-1,0,0)',
      'rgb(1.5,0,0)',
      'RGB(0,0,0)',
      'rgb(0,0,0);',
      '',
    ])('refuses %j', (v) => expect(parseRgb(v)).toBeNull());

    it('computes the WCAG contrast ratio', () => {
      expect(contrastRatio({ r: 0, g: 0, b: 0 }, { r: 255, g: 255, b: 255 })).toBeCloseTo(21, 5);
      expect(contrastRatio({ r: 9, g: 9, b: 9 }, { r: 9, g: 9, b: 9 })).toBe(1);
      expect(contrastRatio({ r: 255, g: 255, b: 255 }, { r: 0, g: 0, b: 255 })).toBeCloseTo(
        8.59,
        1,
      );
    });
  });

  describe('addresses', () => {
    it.each([
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      // IPv4-compatible (::/96), whatever they embed, and IPv4-mapped / -translated ones
      '::7f00:1',
      '::127.0.0.1',
      '[::7f00:1]',
      '::a00:1',
      '::808:808',
      '::ffff:8.8.8.8',
      '::ffff:0:7f00:1',
      '[::1]',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'ff02::1',
      'localhost',
      'example.com',
      '',
    ])('%s is not public', (ip) => expect(isPublicAddress(ip)).toBe(false));

    it.each([
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '[2a00:1450::1]',
    ])('%s is public', (ip) => expect(isPublicAddress(ip)).toBe(true));
  });

  describe('logo sources', () => {
    it('takes http(s) URLs and asset file names', () => {
      const url = parseLogoSource('https://cdn.example.com/logo.png', false);
      expect(url.kind).toBe('url');
      expect(url.kind === 'url' && url.url.hostname).toBe('cdn.example.com');
      expect(parseLogoSource('brand_logo-2.PNG', false)).toEqual({
        kind: 'asset',
        name: 'brand_logo-2.PNG',
      });
      expect(parseLogoSource('logo.jpeg', false)).toEqual({ kind: 'asset', name: 'logo.jpeg' });
    });

    it.each([
      ['ftp://example.com/logo.png', /http\(s\) URL/],
      ['file:///etc/passwd', /http\(s\) URL/],
      ['javascript:alert(1)', /http\(s\) URL/],
      ['https://user:pw@example.com/logo.png', /credentials/],
      [`https://example.com/${'a'.repeat(2048)}`, /at most 2048/],
      ['https://127.0.0.1/logo.png', /private, loopback or link-local/],
      ['http://2130706433/logo.png', /private, loopback or link-local/],
      ['http://[::1]:8080/logo.png', /private, loopback or link-local/],
      ['http://169.254.169.254/latest', /private, loopback or link-local/],
      ['http://10.0.0.1/x.png', /private, loopback or link-local/],
      ['../secret.png', /must not contain/],
      ['..', /must not contain/],
      ['a/b.png', /must not contain/],
      ['/etc/passwd', /must not contain/],
      ['C:\\logo.png', /http\(s\) URL/],
      ['..\\logo.png', /must not contain/],
      ['.hidden.png', /file name of/],
      ['logo.gif', /\.png, \.jpg or \.jpeg/],
      ['logo', /\.png, \.jpg or \.jpeg/],
      ['lo go.png', /file name of/],
    ])('refuses %j', (value, reason) => {
      expect(() => parseLogoSource(value, false)).toThrow(reason);
    });

    it('takes literal private addresses only when allowed', () => {
      expect(parseLogoSource('http://127.0.0.1:8080/logo.png', true).kind).toBe('url');
    });

    it('resolves asset paths inside the assets folder only', () => {
      expect(assetPath('/data', 'logo.png')).toBe(resolve('/data/assets/logo.png'));
      expect(() => assetPath('/data', '../x.png')).toThrow(/inside the assets folder/);
      expect(() => assetPath('/data', '/etc/passwd')).toThrow(/inside the assets folder/);
    });
  });

  describe('storage', () => {
    it('names image files after valid codes only', () => {
      expect(qrImagePath('/s', 'Ab_9-x', 'png')).toBe(resolve('/s/qr/Ab_9-x.png'));
      for (const bad of ['', '../x', 'a/b', 'a.b', 'a%2e', 'x'.repeat(65)]) {
        expect(QR_CODE_PATTERN.test(bad)).toBe(false);
        expect(() => qrImagePath('/s', bad, 'svg')).toThrow();
      }
    });
  });
});
