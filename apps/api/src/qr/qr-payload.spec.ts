import fc from 'fast-check';

import { InvalidFieldError } from '@app/common';
import { QrType } from '@app/database';

import {
  escapeVcard,
  escapeWifi,
  foldVcardLine,
  mailtoUrl,
  qrContent,
  QrData,
  validateQrData,
  vcardPayload,
} from './qr-payload';

/** The message validateQrData throws for (type, data), or null when it accepts. */
function rejection(type: QrType, data: unknown): string | null {
  try {
    validateQrData(type, data);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidFieldError);
    return (err as Error).message;
  }
}

const content = (type: QrType, data: unknown) => qrContent(type, validateQrData(type, data));

describe('qr-payload', () => {
  describe('text', () => {
    it('accepts 1 to 4296 characters, line breaks included, and stands for itself', () => {
      expect(validateQrData('text', 'hello\nworld')).toBe('hello\nworld');
      expect(content('text', 'a\tb')).toEqual({ payload: 'a\tb' });
      expect(validateQrData('text', 'x'.repeat(4296))).toHaveLength(4296);
    });

    it.each([
      ['', 'data: must be 1 to 4296 characters'],
      ['x'.repeat(4297), 'data: must be 1 to 4296 characters'],
      [42, 'data: must be a string'],
      [{ text: 'a' }, 'data: must be a string'],
      [null, 'data: must be a string'],
      ['nul\u0000byte', 'data: must not contain control characters'],
      ['bell\u0007', 'data: must not contain control characters'],
      ['lone \ud800 surrogate', 'data: must not contain control characters'],
    ])('rejects %j', (data, message) => {
      expect(rejection('text', data)).toBe(message);
    });
  });

  describe('link', () => {
    it('accepts absolute http(s) URLs and forwards to the normalised href', () => {
      expect(content('link', 'https://example.com/a?b=c#d')).toEqual({
        payload: 'https://example.com/a?b=c#d',
        target: 'https://example.com/a?b=c#d',
      });
      expect(validateQrData('link', 'HTTP://Example.com')).toBe('HTTP://Example.com');
      expect(content('link', 'https://bücher.example/straße').target).toBe(
        'https://xn--bcher-kva.example/stra%C3%9Fe',
      );
    });

    it.each([
      'ftp://example.com',
      'javascript:alert(1)',
      'example.com',
      '/relative',
      'https://',
      'https://exa mple.com',
      ' https://example.com',
      'data:text/html,hi',
      'https://user:pass@example.com/',
      'https://user@example.com/',
    ])('rejects %j', (data) => {
      expect(rejection('link', data)).toBe('data: must be an http(s) URL');
    });

    it('rejects non-strings and URLs over 2048 characters', () => {
      expect(rejection('link', ['https://example.com'])).toBe('data: must be a string');
      expect(rejection('link', `https://example.com/${'a'.repeat(2048)}`)).toBe(
        'data: must be 1 to 2048 characters',
      );
    });
  });

  describe('email', () => {
    it('takes an address and encodes mailto:', () => {
      expect(content('email', 'someone@example.com')).toEqual({
        payload: 'mailto:someone@example.com',
        target: 'mailto:someone@example.com',
      });
    });

    it('takes {email, subject, body}: percent-encoded, CRLF line breaks in the body', () => {
      const data = { email: 'a+b@example.com', subject: 'Hi & bye?', body: 'line 1\nline 2' };
      expect(validateQrData('email', data)).toEqual(data);
      expect(content('email', data).target).toBe(
        'mailto:a%2Bb@example.com?subject=Hi%20%26%20bye%3F&body=line%201%0D%0Aline%202',
      );
      expect(content('email', { email: 'x@example.com' }).target).toBe('mailto:x@example.com');
      expect(content('email', { email: 'x@example.com', body: 'b' }).target).toBe(
        'mailto:x@example.com?body=b',
      );
    });

    it.each([
      ['not-an-address', 'data: must be a valid e-mail address'],
      ['', 'data: must be 1 to 254 characters'],
      [{}, 'data.email: required'],
      [{ email: 'nope' }, 'data.email: must be a valid e-mail address'],
      [{ email: 'a@example.com', subject: 5 }, 'data.subject: must be a string'],
      [
        { email: 'a@example.com', subject: 'a\nb' },
        'data.subject: must be one line without control characters',
      ],
      [
        { email: 'a@example.com', body: 'x'.repeat(2001) },
        'data.body: must be at most 2000 characters',
      ],
      [{ email: 'a@example.com', cc: 'b@example.com' }, 'data.cc: unknown field'],
      [7, 'data: must be an object with email (or an e-mail address string)'],
      [['a@example.com'], 'data: must be an object with email (or an e-mail address string)'],
    ])('rejects %j', (data, message) => {
      expect(rejection('email', data)).toBe(message);
    });
  });

  describe('phone', () => {
    it('takes digits with an optional leading + and encodes tel:', () => {
      expect(content('phone', '+15551234567')).toEqual({
        payload: 'tel:+15551234567',
        target: 'tel:+15551234567',
      });
      expect(content('phone', '112').target).toBe('tel:112');
    });

    it.each(['555-1234', '+1 555 1234', '12', '1+2345', '++1234', 'tel:123', '', '1'.repeat(21)])(
      'rejects %j',
      (data) => {
        expect(rejection('phone', data)).toBe(
          'data: must be a phone number: 3 to 20 digits with an optional leading +',
        );
      },
    );

    it('rejects a number type', () => {
      expect(rejection('phone', 5551234)).toMatch(/^data: must be a phone number/);
    });
  });

  describe('sms', () => {
    it('encodes SMSTO:phone:message and forwards to sms:phone?body=', () => {
      expect(content('sms', { phone: '+15551234', message: 'Hello, world: yes?' })).toEqual({
        payload: 'SMSTO:+15551234:Hello, world: yes?',
        target: 'sms:+15551234?body=Hello%2C%20world%3A%20yes%3F',
      });
      expect(content('sms', { phone: '5551234' })).toEqual({
        payload: 'SMSTO:5551234:',
        target: 'sms:5551234',
      });
    });

    it.each([
      ['5551234', 'data: must be an object with phone'],
      [{}, 'data.phone: required'],
      [
        { phone: 'abc' },
        'data.phone: must be a phone number: 3 to 20 digits with an optional leading +',
      ],
      [{ phone: '5551234', message: 1 }, 'data.message: must be a string'],
      [
        { phone: '5551234', message: 'x'.repeat(1001) },
        'data.message: must be at most 1000 characters',
      ],
      [{ phone: '5551234', text: 'hi' }, 'data.text: unknown field'],
    ])('rejects %j', (data, message) => {
      expect(rejection('sms', data)).toBe(message);
    });
  });

  describe('wifi', () => {
    it('encodes WIFI:T:..;S:..;P:..;H:true;; with the canonical form stored', () => {
      const data = { ssid: 'Home', pass: 'secret123', encryption: 'WPA', hidden: true };
      expect(validateQrData('wifi', data)).toEqual({
        ssid: 'Home',
        pass: 'secret123',
        encryption: 'WPA',
        hidden: true,
      });
      expect(content('wifi', data)).toEqual({ payload: 'WIFI:T:WPA;S:Home;P:secret123;H:true;;' });
    });

    it('escapes \\ ; , : " in the SSID and the password', () => {
      const data = { ssid: 'a;b,c:d"e\\f', pass: 'p;a,s:s"w\\d' };
      expect(content('wifi', data).payload).toBe(
        'WIFI:T:WPA;S:a\\;b\\,c\\:d\\"e\\\\f;P:p\\;a\\,s\\:s\\"w\\\\d;;',
      );
    });

    it('accepts password as an alias of pass and defaults encryption from the password', () => {
      expect(validateQrData('wifi', { ssid: 'Cafe', password: 'letmein99' })).toEqual({
        ssid: 'Cafe',
        pass: 'letmein99',
        encryption: 'WPA',
        hidden: false,
      });
      expect(validateQrData('wifi', { ssid: 'Open' })).toEqual({
        ssid: 'Open',
        encryption: 'nopass',
        hidden: false,
      });
      expect(content('wifi', { ssid: 'Open' }).payload).toBe('WIFI:T:nopass;S:Open;;');
      expect(content('wifi', { ssid: 'Old', pass: 'abcde', encryption: 'WEP' }).payload).toBe(
        'WIFI:T:WEP;S:Old;P:abcde;;',
      );
      expect(
        content('wifi', { ssid: 'Open', encryption: 'nopass', pass: '', hidden: false }).payload,
      ).toBe('WIFI:T:nopass;S:Open;;');
    });

    it('takes a 32-byte SSID but not 33 bytes', () => {
      expect(validateQrData('wifi', { ssid: 'é'.repeat(16) })).toMatchObject({
        ssid: 'é'.repeat(16),
      });
      expect(rejection('wifi', { ssid: `${'é'.repeat(16)}a` })).toBe(
        'data.ssid: must be at most 32 bytes',
      );
    });

    it.each([
      ['Home', 'data: must be an object with ssid'],
      [{}, 'data.ssid: required'],
      [{ ssid: '' }, 'data.ssid: must be 1 to 32 characters'],
      [{ ssid: 3 }, 'data.ssid: must be a string'],
      [{ ssid: 'a\nb' }, 'data.ssid: must be one line without control characters'],
      [
        { ssid: 'x', pass: 'abcdefgh', password: 'abcdefgh' },
        'data.password: send pass or password, not both',
      ],
      [{ ssid: 'x', pass: 'short' }, 'data.pass: must be 8 to 64 characters for WPA'],
      [{ ssid: 'x', password: 'short' }, 'data.password: must be 8 to 64 characters for WPA'],
      [{ ssid: 'x', encryption: 'WPA' }, 'data.pass: must be 8 to 64 characters for WPA'],
      [
        { ssid: 'x', pass: 'abc', encryption: 'WEP' },
        'data.pass: must be 5 to 64 characters for WEP',
      ],
      [
        { ssid: 'x', pass: 'abcdefgh', encryption: 'nopass' },
        'data.pass: must be empty when encryption is nopass',
      ],
      [{ ssid: 'x', encryption: 'WPA2' }, 'data.encryption: must be WPA, WEP or nopass'],
      [{ ssid: 'x', hidden: 'true' }, 'data.hidden: must be a boolean'],
      [{ ssid: 'x', pass: 'y'.repeat(65) }, 'data.pass: must be at most 64 characters'],
      [{ ssid: 'x', security: 'WPA' }, 'data.security: unknown field'],
    ])('rejects %j', (data, message) => {
      expect(rejection('wifi', data)).toBe(message);
    });

    it('escaping is reversible for any SSID', () => {
      const unescape = (s: string) => s.replace(/\\(.)/g, '$1');
      fc.assert(
        fc.property(fc.string(), (s) => {
          const escaped = escapeWifi(s);
          expect(unescape(escaped)).toBe(s);
          // no unescaped separator survives
          expect(escaped.replace(/\\./g, '')).not.toMatch(/[;,:"\\]/);
        }),
      );
    });
  });

  describe('vcard', () => {
    it('builds vCard 3.0 with CRLF lines, only the fields given, canonical data kept', () => {
      const data = {
        fname: 'Ada',
        lname: 'Lovelace',
        org: 'Analytical Engines',
        phone: '+44 20 7946 0000',
        cell: '+447700900000',
        fax: '020 7946 0001',
        email: 'ada@example.com',
        site: 'https://example.com/ada',
        street: '12 St James Square',
        city: 'London',
        state: 'Greater London',
        zip: 'SW1Y 4JH',
        country: 'UK',
      };
      expect(validateQrData('vcard', data)).toEqual(data);
      expect(content('vcard', data)).toEqual({
        payload: [
          'BEGIN:VCARD',
          'VERSION:3.0',
          'N:Lovelace;Ada;;;',
          'FN:Ada Lovelace',
          'ORG:Analytical Engines',
          'TEL;TYPE=WORK,VOICE:+44 20 7946 0000',
          'TEL;TYPE=CELL:+447700900000',
          'TEL;TYPE=FAX:020 7946 0001',
          'EMAIL;TYPE=INTERNET:ada@example.com',
          'URL:https://example.com/ada',
          'ADR;TYPE=WORK:;;12 St James Square;London;Greater London;SW1Y 4JH;UK',
          'END:VCARD',
          '',
        ].join('\r\n'),
      });
    });

    it('escapes \\ , ; and line breaks in text values', () => {
      const card = vcardPayload({
        fname: 'A;B',
        lname: 'C,D',
        org: 'x\\y',
        street: 'Line 1\nLine 2\r\nLine 3',
      });
      expect(card).toContain('\r\nN:C\\,D;A\\;B;;;\r\n');
      expect(card).toContain('\r\nFN:A\\;B C\\,D\r\n');
      expect(card).toContain('\r\nORG:x\\\\y\r\n');
      expect(card).toContain('\r\nADR;TYPE=WORK:;;Line 1\\nLine 2\\nLine 3;;;;\r\n');
      expect(escapeVcard('a\rb')).toBe('a\\nb');
    });

    it('names the card after the organisation or the e-mail when there is no name', () => {
      expect(content('vcard', { org: 'Acme' }).payload).toContain('\r\nN:;;;;\r\nFN:Acme\r\n');
      expect(content('vcard', { email: 'x@example.com' }).payload).toContain(
        '\r\nFN:x@example.com\r\n',
      );
    });

    it('drops empty strings and needs at least one field', () => {
      expect(validateQrData('vcard', { fname: 'A', lname: '', org: '' })).toEqual({ fname: 'A' });
      expect(rejection('vcard', {})).toMatch(/^data: must have at least one of fname, lname, org/);
      expect(rejection('vcard', { fname: '' })).toMatch(/^data: must have at least one of/);
    });

    it.each([
      ['Ada', /^data: must be an object with at least one of/],
      [{ fname: 'A', nickname: 'B' }, /^data\.nickname: unknown field$/],
      [{ email: 'nope' }, /^data\.email: must be a valid e-mail address$/],
      [{ site: 'example.com' }, /^data\.site: must be an http\(s\) URL$/],
      [{ site: 'https://me:secret@example.com/' }, /^data\.site: must be an http\(s\) URL$/],
      [{ phone: 'call me' }, /^data\.phone: must be a phone number/],
      [{ cell: '12' }, /^data\.cell: must be a phone number/],
      [{ fax: '1+23456' }, /^data\.fax: must be a phone number/],
      [{ fname: 'x'.repeat(256) }, /^data\.fname: must be at most 255 characters$/],
      [{ fname: 'a\nb' }, /^data\.fname: must be one line/],
      [{ city: 5 }, /^data\.city: must be a string$/],
    ])('rejects %j', (data, message) => {
      expect(rejection('vcard', data)).toMatch(message);
    });

    it('folds lines over 75 octets without splitting characters', () => {
      const long = `ORG:${'€'.repeat(60)}`;
      const folded = foldVcardLine(long);
      const lines = folded.split('\r\n');
      expect(lines.length).toBeGreaterThan(1);
      for (const l of lines) expect(Buffer.byteLength(l, 'utf8')).toBeLessThanOrEqual(75);
      expect(lines.slice(1).every((l) => l.startsWith(' '))).toBe(true);
      expect(lines.map((l, i) => (i ? l.slice(1) : l)).join('')).toBe(long);
      expect(foldVcardLine('FN:short')).toBe('FN:short');

      fc.assert(
        fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => {
          const f = foldVcardLine(`NOTE:${s}`).split('\r\n');
          expect(f.map((l, i) => (i ? l.slice(1) : l)).join('')).toBe(`NOTE:${s}`);
          for (const l of f) expect(Buffer.byteLength(l, 'utf8')).toBeLessThanOrEqual(75);
        }),
      );
    });
  });

  it('mailtoUrl keeps @ readable and encodes everything else', () => {
    expect(mailtoUrl('a b@example.com')).toBe('mailto:a%20b@example.com');
  });

  it('every canonical form validates to itself (idempotent)', () => {
    const samples: Array<[QrType, unknown]> = [
      ['text', 'hi'],
      ['link', 'https://example.com'],
      ['email', { email: 'a@example.com', subject: 's' }],
      ['phone', '+123456'],
      ['sms', { phone: '123456', message: 'm' }],
      ['wifi', { ssid: 's', password: 'password1' }],
      ['vcard', { fname: 'A', lname: '' }],
    ];
    for (const [type, data] of samples) {
      const once = validateQrData(type, data);
      expect(validateQrData(type, once as QrData)).toEqual(once);
    }
  });
});
