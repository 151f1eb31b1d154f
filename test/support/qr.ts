import jsQR from 'jsqr';
import sharp from 'sharp';

export interface Decoded {
  /** The text the QR code encodes, or null when it does not scan. */
  text: string | null;
  width: number;
  height: number;
  /** RGB of one pixel. */
  pixel: (x: number, y: number) => number[];
}

/** Decodes a rendered QR image (PNG or SVG) the way a scanner would (jsQR on the raster). */
export async function decodeQr(image: Buffer): Promise<Decoded> {
  const { data, info } = await sharp(image)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const code = jsQR(
    new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    info.width,
    info.height,
  );
  return {
    text: code?.data ?? null,
    width: info.width,
    height: info.height,
    pixel: (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 3)],
  };
}
