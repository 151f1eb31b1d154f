import sharp from 'sharp';

import { AppConfig } from '@app/config';

import { decodeQr as decode } from '../../../../test/support/qr';
import { QR_SIZE, QrRenderer } from './qr-renderer';

const WHITE = { r: 255, g: 255, b: 255 };
const BLACK = { r: 0, g: 0, b: 0 };

describe('QrRenderer', () => {
  const renderer = new QrRenderer(Object.assign(new AppConfig(), { QR_CONCURRENCY: 2 }));
  const text = 'http://short.test/q/Ab3dE9xZ';
  let logo: Buffer;

  beforeAll(async () => {
    logo = await sharp({
      create: {
        width: 300,
        height: 150,
        channels: 4,
        background: { r: 255, g: 0, b: 0, alpha: 1 },
      },
    })
      .png()
      .toBuffer();
  });

  it('renders a 512 px PNG and an SVG that decode back to the text, with margin 2 and level M', async () => {
    const { png, svg } = await renderer.render({ text, background: WHITE, foreground: BLACK });
    const img = await decode(png);
    expect([img.width, img.height, img.text]).toEqual([QR_SIZE, QR_SIZE, text]);
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="512" height="512" viewBox="0 0 33 33"/,
    ); // version 3 at level M, plus 2 + 2 modules of margin
    expect((await decode(await sharp(Buffer.from(svg)).png().toBuffer())).text).toBe(text);
  });

  it('uses the colours: background in the quiet zone, foreground in the finder pattern', async () => {
    const background = { r: 255, g: 250, b: 205 };
    const foreground = { r: 120, g: 0, b: 40 };
    const { png, svg } = await renderer.render({ text, background, foreground });
    const img = await decode(png);
    expect(img.text).toBe(text);
    expect(img.pixel(3, 3)).toEqual([255, 250, 205]);
    const module = QR_SIZE / 29;
    expect(img.pixel(Math.round(module * 2.5), Math.round(module * 2.5))).toEqual([120, 0, 40]);
    expect(svg).toContain('fill="#fffacd"');
    expect(svg).toContain('stroke="#780028"');
  });

  it('composites a logo on a background square in the centre, at level H, and still decodes', async () => {
    const background = { r: 230, g: 240, b: 255 };
    const { png, svg } = await renderer.render({ text, background, foreground: BLACK, logo });
    const img = await decode(png);
    expect(img.text).toBe(text);
    expect(img.pixel(256, 256)).toEqual([255, 0, 0]);
    // the logo is 20 % wide (102 px, aspect kept: 51 px high) on a 24 % square of background colour
    expect(img.pixel(256 - 45, 256)).toEqual([255, 0, 0]);
    expect(img.pixel(256, 256 - 40)).toEqual([230, 240, 255]);
    expect(img.pixel(256 - 58, 256 - 58)).toEqual([230, 240, 255]);
    expect(svg).toMatch(/viewBox="0 0 37 37"/); // level H needs version 4 here (M: version 3)
    expect(svg).toMatch(
      /<rect [^>]*fill="#e6f0ff"\/><image [^>]*href="data:image\/png;base64,[A-Za-z0-9+/=]+"\/><\/svg>/,
    );
    expect((await decode(await sharp(Buffer.from(svg)).png().toBuffer())).text).toBe(text);
  });

  it('prepares a logo once per background colour', async () => {
    const spy = jest.spyOn((renderer as unknown as { logos: Map<string, unknown> }).logos, 'set');
    await renderer.render({ text: `${text}1`, background: WHITE, foreground: BLACK, logo });
    await renderer.render({ text: `${text}2`, background: WHITE, foreground: BLACK, logo });
    await renderer.render({
      text: `${text}3`,
      background: { r: 250, g: 250, b: 250 },
      foreground: BLACK,
      logo,
    });
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
