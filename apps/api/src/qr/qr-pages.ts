import { escaped, SafeHtml } from '../public/html';
import { BASE_CSS, Page, page } from '../public/pages';
import { QrData } from './qr-payload';

/** The public pages' look with what the QR pages add (one style block). */
const QR_CSS =
  BASE_CSS +
  'pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0}' +
  'dl{display:grid;grid-template-columns:auto 1fr;gap:.5rem 1rem;margin:0}dt{color:#57606a}' +
  'dd{margin:0;word-break:break-all}.muted{margin:1rem 0 0}';

function qrPage(title: string, body: SafeHtml): Page {
  return page({ title, body: escaped`<main>${body}</main>`, baseStyle: QR_CSS });
}

/** A text QR code: the text, escaped, line breaks kept. */
export function qrTextPage(text: string): Page {
  return qrPage('Text', escaped`<h1>Text</h1><pre>${text}</pre>`);
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
  return qrPage(
    `Wi-Fi: ${ssid}`,
    escaped`<h1>Wi-Fi network</h1><dl>${rows.map(
      ([k, v]) => escaped`<dt>${k}</dt><dd><code>${v}</code></dd>`,
    )}</dl><p class="muted">Open the Wi-Fi settings of your device, choose this network and enter the password.</p>`,
  );
}
