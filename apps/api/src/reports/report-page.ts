import { IncomingMessage, ServerResponse } from 'node:http';

import { Injectable } from '@nestjs/common';

import { AppError, ClientAddress, PublicUrls } from '@app/common';
import { AppConfig } from '@app/config';

import { escaped, SafeHtml } from '../public/html';
import { page, Page } from '../public/pages';
import { readForm } from '../public/password-gate';
import { PublicRequestContext } from '../public/public-routes';
import { PublicResponder } from '../public/responder';
import {
  checkReport,
  formToken,
  MAX_DETAILS,
  MAX_EMAIL,
  MAX_REPORT_URL,
  REASON_LABELS,
  REPORT_REASONS,
  validFormToken,
} from './report-rules';
import { ReportsService } from './reports.service';

const FORM_CSS =
  'select,textarea{font:inherit;padding:.45rem;border:1px solid #d0d7de;border-radius:6px;width:100%;' +
  'box-sizing:border-box;margin:.5rem 0 1rem}textarea{min-height:6rem}label{font-weight:600}' +
  '.err{margin:-.6rem 0 1rem}.opt{font-weight:400;color:#57606a}';

/** Largest form accepted: the details (1000 characters, up to 9 bytes each encoded) and the rest. */
const MAX_REPORT_FORM_BYTES = 12_000;

type Values = Record<'url' | 'reason' | 'details' | 'email', string>;
const EMPTY: Values = { url: '', reason: '', details: '', email: '' };

/**
 * The public page `/report` (main host): a plain HTML form, no script, that posts to itself.
 * Cross-site posts are refused (403): a browser's `Sec-Fetch-Site` must be same-origin (or none),
 * an `Origin` must be this host, and the hidden `token` must be one this service signed within
 * the hour (APP_SECRET). The same checks and rate limit as `POST /api/report` apply.
 */
@Injectable()
export class ReportPage {
  constructor(
    private readonly reports: ReportsService,
    private readonly respond: PublicResponder,
    private readonly clients: ClientAddress,
    private readonly config: AppConfig,
    private readonly urls: PublicUrls,
  ) {}

  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: PublicRequestContext,
  ): Promise<void> {
    if (ctx.domain !== null || (ctx.path !== '/report' && ctx.path !== '/report/'))
      return this.respond.notFound(res, ctx.domain);
    if (req.method !== 'POST') return this.respond.sendPage(res, 200, this.form(EMPTY));
    if (!this.sameOrigin(req)) return this.respond.sendPage(res, 403, REFUSED);
    const form = await readForm(req, res, this.respond, MAX_REPORT_FORM_BYTES);
    if (form === null) return;
    if (!validFormToken(this.config.secret, form.get('token')))
      return this.respond.sendPage(res, 403, REFUSED);
    const values: Values = {
      url: form.get('url') ?? '',
      reason: form.get('reason') ?? '',
      details: form.get('details') ?? '',
      email: form.get('email') ?? '',
    };
    const address = this.clients.of(req);
    const wait = await this.reports.limit(address);
    if (wait !== null)
      return this.respond.sendPage(res, 429, TOO_MANY, 'no-store', ['Retry-After', String(wait)]);
    const checked = checkReport(values);
    if (!checked.ok)
      return this.respond.sendPage(res, 400, this.form(values, checked.field, checked.message));
    try {
      const id = await this.reports.create(checked.value, address);
      this.respond.sendPage(res, 200, thanks(id));
    } catch (err) {
      if (err instanceof AppError && err.status === 400 && err.message.startsWith('url: '))
        return this.respond.sendPage(res, 400, this.form(values, 'url', err.message));
      throw err;
    }
  }

  /** A form post from another site: its Sec-Fetch-Site or Origin says so. */
  private sameOrigin(req: IncomingMessage): boolean {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    try {
      const host = new URL(origin).host.toLowerCase();
      return (
        host === String(req.headers.host ?? '').toLowerCase() ||
        origin === new URL(this.urls.base).origin
      );
    } catch {
      return false;
    }
  }

  private form(values: Values, field?: string, message?: string): Page {
    const err = (name: string): SafeHtml | false =>
      field === name && escaped`<p class="err" id="${name}-err">${message}</p>`;
    const attrs = (name: string): SafeHtml =>
      field === name
        ? new SafeHtml(` aria-invalid="true" aria-describedby="${name}-err"`)
        : new SafeHtml('');
    const options = REPORT_REASONS.map(
      (r) =>
        escaped`<option value="${r}"${new SafeHtml(values.reason === r ? ' selected' : '')}>${REASON_LABELS[r]}</option>`,
    );
    return page({
      title: 'Report a short link',
      styles: [FORM_CSS],
      sources: { formAction: ["'self'"] },
      body: escaped`<main><h1>Report a short link</h1>
<p>Tell us about a short link of this service used for phishing, malware, spam or illegal content. An administrator will look at it.</p>
${field ? escaped`<p class="err" role="alert">Please correct the field marked below.</p>` : ''}
<form method="post" action="/report" novalidate>
<input type="hidden" name="token" value="${formToken(this.config.secret)}">
<label for="url">Short link</label>
<input id="url" name="url" type="url" required maxlength="${MAX_REPORT_URL}" placeholder="${this.urls.base}/abc123" value="${values.url}"${attrs('url')}>
${err('url')}
<label for="reason">Reason</label>
<select id="reason" name="reason" required${attrs('reason')}><option value="">Choose a reason</option>${options}</select>
${err('reason')}
<label for="details">Details <span class="opt">(optional)</span></label>
<textarea id="details" name="details" maxlength="${MAX_DETAILS}"${attrs('details')}>${values.details}</textarea>
${err('details')}
<label for="email">Your e-mail <span class="opt">(optional, seen by the administrators only)</span></label>
<input id="email" name="email" type="email" maxlength="${MAX_EMAIL}" autocomplete="email" value="${values.email}"${attrs('email')}>
${err('email')}
<button class="btn" type="submit">Send report</button>
</form></main>`,
    });
  }
}

function thanks(id: number): Page {
  return page({
    title: 'Report received',
    body: escaped`<main><h1>Thank you</h1><p>Your report (number ${id}) was received. An administrator will look at it.</p><p><a href="/report">Report another link</a></p></main>`,
  });
}

const REFUSED = page({
  title: 'Form refused',
  body: escaped`<main><h1>Form refused</h1><p>This form was sent from another site, or it is too old. <a href="/report">Open the form again</a>.</p></main>`,
});

const TOO_MANY = page({
  title: 'Too many reports',
  body: escaped`<main><h1>Too many reports</h1><p>Too many reports were sent from your address. Try again later.</p></main>`,
});
