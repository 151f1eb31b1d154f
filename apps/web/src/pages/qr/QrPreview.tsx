import { useEffect, useState } from 'react';

/** The worker's drawing (apps/worker/src/qr/qr-renderer.ts): 512 px, margin 2, M or H with a logo. */
const SIZE = 512;
const MARGIN = 2;
/** The logo sits on a square of background colour 24 % of the image wide. */
const PAD_SHARE = 0.24;

/**
 * The SVG the worker makes for `text` with these colours: the same `qrcode` call and options, so
 * the preview is the saved picture module for module. A logo is fetched and drawn by the worker
 * (the dashboard's CSP loads no outside image): the preview marks its padded square instead.
 */
export async function previewSvg(input: {
  text: string;
  foreground: string;
  background: string;
  logo: boolean;
}): Promise<string> {
  const QRCode = (await import('qrcode')).default;
  const svg = await QRCode.toString(input.text, {
    type: 'svg',
    errorCorrectionLevel: input.logo ? 'H' : 'M',
    margin: MARGIN,
    width: SIZE,
    color: { dark: `${input.foreground}ff`, light: `${input.background}ff` },
  });
  if (!input.logo) return svg;
  const m = /viewBox="0 0 (\d+) \d+"/.exec(svg);
  if (!m) return svg;
  const units = Number(m[1]);
  const pad = Math.round(SIZE * PAD_SHARE) * (units / SIZE);
  const at = (units - pad) / 2;
  const inner = pad * 0.7;
  const f = (n: number) => Number(n.toFixed(3));
  const mark =
    `<rect x="${f(at)}" y="${f(at)}" width="${f(pad)}" height="${f(pad)}" fill="${input.background}"/>` +
    `<rect x="${f((units - inner) / 2)}" y="${f((units - inner) / 2)}" width="${f(inner)}" height="${f(inner)}" ` +
    `rx="${f(inner / 6)}" fill="none" stroke="${input.foreground}" stroke-width="${f(inner / 12)}" stroke-dasharray="${f(inner / 8)}"/>`;
  return svg.replace('</svg>', `${mark}</svg>`);
}

/**
 * The live preview: redrawn whenever the encoded link, the colours or the presence of a logo
 * change. `qrcode` is loaded with `import()`, on this page only; the picture is a `data:` URL
 * (which the CSP's img-src allows).
 */
export function QrPreview(props: {
  text: string;
  foreground: string;
  background: string;
  logo: boolean;
  caption: string;
}) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const { text, foreground, background, logo } = props;
  useEffect(() => {
    let live = true;
    previewSvg({ text, foreground, background, logo })
      .then((svg) => {
        if (!live) return;
        setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
        setFailed(false);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [text, foreground, background, logo]);
  return (
    <figure className="qr-preview" aria-live="polite">
      {failed ? (
        <p className="error" role="alert">
          The preview could not be drawn.
        </p>
      ) : src ? (
        <img
          src={src}
          width={256}
          height={256}
          alt={`Preview of the QR code, ${foreground} on ${background}${logo ? ', with a logo' : ''}`}
          data-testid="qr-preview"
        />
      ) : (
        <p aria-busy="true">Drawing the preview…</p>
      )}
      <figcaption className="hint">{props.caption}</figcaption>
    </figure>
  );
}
