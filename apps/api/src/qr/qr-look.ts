import { stat } from 'node:fs/promises';

import { Injectable } from '@nestjs/common';

import { InvalidFieldError } from '@app/common';
import { AppConfig } from '@app/config';
import {
  assetPath,
  contrastRatio,
  DEFAULT_BACKGROUND,
  DEFAULT_FOREGROUND,
  formatRgb,
  LogoSourceError,
  MIN_QR_CONTRAST,
  parseLogoSource,
  parseRgb,
  Rgb,
} from '@app/qr';

/** What a QR image looks like, as stored. */
export interface QrLookFields {
  background: string;
  foreground: string;
  logo: string | null;
}

export const DEFAULT_LOOK: QrLookFields = {
  background: DEFAULT_BACKGROUND,
  foreground: DEFAULT_FOREGROUND,
  logo: null,
};

/** The colour and logo rules of QR codes (create and update): 400 naming the field. */
@Injectable()
export class QrLook {
  constructor(private readonly config: AppConfig) {}

  /**
   * Validated colours and logo: each field sent replaces the current value ("" puts back the
   * default: white, black, no logo); fields not sent keep it. The colours must contrast enough
   * to scan; a logo is an http(s) URL (checked again, with DNS, when the worker fetches it) or a
   * file of the assets folder.
   */
  async resolve(
    dto: Partial<Record<keyof QrLookFields, string>>,
    current: QrLookFields,
  ): Promise<QrLookFields> {
    const color = (field: 'background' | 'foreground', fallback: string): Rgb => {
      const value = dto[field];
      if (value === undefined) return parseRgb(current[field]) as Rgb;
      if (value === '') return parseRgb(fallback) as Rgb;
      const rgb = parseRgb(value);
      if (!rgb)
        throw new InvalidFieldError(field, 'must be rgb(R,G,B) with R, G and B from 0 to 255');
      return rgb;
    };
    const background = color('background', DEFAULT_BACKGROUND);
    const foreground = color('foreground', DEFAULT_FOREGROUND);
    const ratio = contrastRatio(background, foreground);
    if (ratio < MIN_QR_CONTRAST) {
      throw new InvalidFieldError(
        'foreground',
        `too little contrast with the background (${ratio.toFixed(2)}:1; at least ${MIN_QR_CONTRAST}:1 is needed to scan)`,
      );
    }
    let logo = current.logo;
    if (dto.logo === '') logo = null;
    else if (dto.logo !== undefined) logo = await this.checkLogo(dto.logo);
    return { background: formatRgb(background), foreground: formatRgb(foreground), logo };
  }

  private async checkLogo(value: string): Promise<string> {
    try {
      const source = parseLogoSource(value, this.config.ALLOW_PRIVATE_FETCH);
      if (source.kind === 'asset') {
        const file = await stat(assetPath(this.config.STORAGE_DIR, source.name)).catch(() => null);
        if (!file?.isFile()) throw new LogoSourceError('no such file in the assets folder');
      }
      return value;
    } catch (err) {
      if (err instanceof LogoSourceError) throw new InvalidFieldError('logo', err.message);
      throw err;
    }
  }
}
