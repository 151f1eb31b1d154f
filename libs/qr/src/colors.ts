/** A colour as the API takes it: `rgb(R,G,B)`, each channel 0–255. */
export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export const DEFAULT_BACKGROUND = 'rgb(255,255,255)';
export const DEFAULT_FOREGROUND = 'rgb(0,0,0)';

/** Below this WCAG contrast ratio between foreground and background, scanners miss the code. */
export const MIN_QR_CONTRAST = 2;

const RGB = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;

/** Parses `rgb(R,G,B)` (spaces allowed around the numbers); null when malformed or out of range. */
export function parseRgb(value: string): Rgb | null {
  const m = RGB.exec(value);
  if (!m) return null;
  const [r, g, b] = m.slice(1).map(Number);
  if (r > 255 || g > 255 || b > 255) return null;
  return { r, g, b };
}

/** The canonical form stored and shown: `rgb(R,G,B)` without spaces. */
export function formatRgb({ r, g, b }: Rgb): string {
  return `rgb(${r},${g},${b})`;
}

/** `#rrggbb` */
export function rgbToHex({ r, g, b }: Rgb): string {
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

function luminance({ r, g, b }: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio, 1 (same colour) to 21 (black on white). */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
