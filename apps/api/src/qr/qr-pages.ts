import { Page } from '../public/pages';
import { contentSecurityPolicy, escaped, SafeHtml } from '../public/html';
import { QrData } from './qr-payload';

/** The look of the QR pages (the only inline block: allowed by its hash, nothing else loads). */
const STYLE =
  'html,body{margin:0;padding:0}body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
  'color:#1f2328;background:#f6f8fa}main{max-width:34rem;margin:12vh auto;padding:2rem;background:#fff;' +
  'border:1px solid #d0d7de;border-radius:8px}h1{font-size:1.4rem;margin:0 0 1rem}' +
  'pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0}' +
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.5rem 1rem;margin:0}dt{color:#57606a}' +
  'dd{margin:0;word-break:break-all}.muted{color:#57606a;font-size:.9rem;margin:1rem 0 0}';

function page(title: string, body: SafeHtml): Page {
  const markup = escaped`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${title}</title><style>${new SafeHtml(STYLE)}</style></head>
<body><main>${body}</main></body></html>`;
  return { html: markup.value, csp: contentSecurityPolicy([STYLE], []) };
}

/** A text QR code: the text, escaped, line breaks kept. */
export function qrTextPage(text: string): Page {
  return page('Text', escaped`<h1>Text</h1><pre>${text}</pre>`);
}

/** A Wi-Fi QR code: network, password and security, to type into the device's settings. */
export function qrWifiPage(data: QrData): Page {
  const o = typeof data === 'object' ? data : {};
  const ssid = String(o.ssid ?? '');
  const encryption = String(o.encryption ?? 'nopass');
  const rows: Array<[string, string]> = [['Network', ssid]];
  if (encryption !== 'nopass') rows.push(['Password', String(o.pass ?? '')]);
  rows.push(['Security', encryption === 'nopass' ? 'None (open network)' : encryption]);
  if (o.hidden === true) rows.push(['Hidden', 'Yes: add the network by its name']);
  return page(
    `Wi-Fi: ${ssid}`,
    escaped`<h1>Wi-Fi network</h1><dl>${rows.map(
      ([k, v]) => escaped`<dt>${k}</dt><dd><code>${v}</code></dd>`,
    )}</dl><p class="muted">Open the Wi-Fi settings of your device, choose this network and enter the password.</p>`,
  );
}
