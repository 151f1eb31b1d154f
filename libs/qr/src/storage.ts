import { resolve, sep } from 'node:path';

/** A QR code's short code (its `links.alias`): what may appear in `/q/<code>` and in file names. */
export const QR_CODE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export type QrImageFormat = 'png' | 'svg';

/** `<STORAGE_DIR>/qr`: rendered images. */
export function qrImageDir(storageDir: string): string {
  return resolve(storageDir, 'qr');
}

/** `<STORAGE_DIR>/qr/<code>.<format>`; throws for a code that is not a valid short code. */
export function qrImagePath(storageDir: string, code: string, format: QrImageFormat): string {
  if (!QR_CODE_PATTERN.test(code)) throw new Error('Invalid QR code');
  return resolve(qrImageDir(storageDir), `${code}.${format}`);
}

/** `<STORAGE_DIR>/assets`: files a QR logo may name. */
export function assetsDir(storageDir: string): string {
  return resolve(storageDir, 'assets');
}

/** True when `path` (already resolved) lies strictly inside `dir` (already resolved). */
export function isInside(dir: string, path: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
