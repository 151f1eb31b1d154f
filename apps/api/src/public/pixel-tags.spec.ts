import { PIXEL_TYPES } from '@app/database';

import { PIXEL_TAG_PATTERN, renderPixel } from './pixel-tags';

describe('pixel tags', () => {
  it('has a template for each of the 13 pixel types, the tag inserted URL-encoded', () => {
    for (const type of PIXEL_TYPES) {
      const r = renderPixel(type, 'AB-12_x.y:z');
      expect(r).not.toBeNull();
      expect(r!.origin).toMatch(/^https:\/\/[a-z0-9.-]+$/);
      expect(r!.markup.value).toContain(`src="${r!.origin}/`);
      expect(r!.markup.value).toMatch(/AB-12_x\.y(%3A|\/)z/);
      expect(r!.markup.value).not.toMatch(/<script/);
    }
  });

  it('uses an image beacon, or a hidden frame for the tag manager', () => {
    expect(renderPixel('vendor03pixel', '123')?.markup.value).toBe(
      '<img class="px" src="https://www.facebook.com/tr?id=123&amp;ev=PageView&amp;noscript=1" width="1" height="1" alt="" referrerpolicy="no-referrer-when-downgrade">',
    );
    expect(renderPixel('vendor01pixel', 'GTM-AB12')).toMatchObject({
      directive: 'frame',
      origin: 'https://www.googletagmanager.com',
    });
  });

  it('refuses tags outside [A-Za-z0-9_.:-]{1,255} and unknown types', () => {
    for (const bad of ['', 'a b', '"><script>', "x'y", 'a/b', 'a&b=c', 'x'.repeat(256), 'ü']) {
      expect([bad, PIXEL_TAG_PATTERN.test(bad), renderPixel('vendor03pixel', bad)]).toEqual([
        bad,
        false,
        null,
      ]);
    }
    expect(renderPixel('vendor99', '123')).toBeNull();
    expect(renderPixel('__proto__', '123')).toBeNull();
    expect(renderPixel('toString', '123')).toBeNull();
  });
});
