import { useState } from 'react';

import { ApiError, headersFor } from '../../api';
import { FormError, toApiError } from '../../ui';

/**
 * Fetches a CSV export with the session (same-origin GET) and hands it to the browser as a
 * download under the name the api gives (`Content-Disposition`). Fetched rather than linked so
 * that a refusal (a plan without the `export` feature: 403; too many exports at once: 429) shows
 * the API's message here instead of a JSON file being saved.
 */
async function download(path: string, fallbackName: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(path, {
      credentials: 'same-origin',
      headers: headersFor('GET', path, { Accept: 'text/csv' }),
    });
  } catch {
    throw new ApiError('The service cannot be reached: check the connection and try again.', 0);
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: unknown } | null;
    const message =
      body && typeof body.message === 'string'
        ? body.message
        : `The export failed (HTTP ${res.status}).`;
    const retry = res.headers.get('Retry-After');
    throw new ApiError(
      res.status === 429 && retry ? `${message} Try again in ${retry} s.` : message,
      res.status,
    );
  }
  const blob = await res.blob();
  const disposition = res.headers.get('Content-Disposition') ?? '';
  const name = /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? fallbackName;
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** "Download CSV": a button that downloads `path`, with the API's refusal shown under it. */
export function ExportButton(props: { path: string; label: string; fileName: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    setDone(false);
    try {
      await download(props.path, props.fileName);
      setDone(true);
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="export">
      <button type="button" onClick={run} disabled={busy} aria-busy={busy || undefined}>
        {busy ? 'Preparing…' : props.label}
      </button>
      <span role="status" className="hint">
        {done ? 'Download started.' : ''}
      </span>
      <FormError error={error} />
    </div>
  );
}
