import { isIP } from 'node:net';
import { resolve } from 'node:path';

import { isPublicAddress } from './net';
import { assetsDir, isInside } from './storage';

export const MAX_LOGO_URL_LENGTH = 2048;
/** A logo file in the assets folder: a plain file name, no folders. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

export type LogoSource = { kind: 'url'; url: URL } | { kind: 'asset'; name: string };

/** Why a logo value is refused (the API words it as `logo: <reason>`). */
export class LogoSourceError extends Error {}

/**
 * What a `logo` value names: an http(s) URL (fetched by the worker) or a file name inside
 * `<STORAGE_DIR>/assets`. Only the form is checked here: no path traversal (`..`, `/`, `\`,
 * absolute paths), and unless `allowPrivate`, no literal private / loopback / link-local IP
 * (host names are resolved and checked by the worker when it fetches).
 */
export function parseLogoSource(value: string, allowPrivate: boolean): LogoSource {
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) {
    if (!/^https?:\/\//i.test(value))
      throw new LogoSourceError('must be an http(s) URL or a file name in the assets folder');
    if (value.length > MAX_LOGO_URL_LENGTH)
      throw new LogoSourceError(`URL must be at most ${MAX_LOGO_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new LogoSourceError('must be a valid http(s) URL');
    }
    if (!url.hostname || /[\s]/.test(value))
      throw new LogoSourceError('must be a valid http(s) URL');
    if (url.username || url.password) throw new LogoSourceError('URL must not carry credentials');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) && !isPublicAddress(host)) {
      throw new LogoSourceError('URL must not point to a private, loopback or link-local address');
    }
    return { kind: 'url', url };
  }
  if (value.includes('/') || value.includes('\\') || value.includes('..')) {
    throw new LogoSourceError('file name must not contain "/", "\\" or ".."');
  }
  if (!ASSET_NAME.test(value)) {
    throw new LogoSourceError(
      'must be an http(s) URL or a file name of [A-Za-z0-9._-] in the assets folder',
    );
  }
  if (!/\.(png|jpe?g)$/i.test(value))
    throw new LogoSourceError('file must be a .png, .jpg or .jpeg image');
  return { kind: 'asset', name: value };
}

/** The absolute path of an asset file name; throws if it would leave the assets folder. */
export function assetPath(storageDir: string, name: string): string {
  const dir = assetsDir(storageDir);
  const path = resolve(dir, name);
  if (!isInside(dir, path))
    throw new LogoSourceError('file name must stay inside the assets folder');
  return path;
}
