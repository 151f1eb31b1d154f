import { useEffect, useState } from 'react';

import { ApiError, call, client, Schemas } from '../../api';
import { toApiError } from '../../ui';

type ImportJob = Schemas['ImportView'];

/** How often a running import is read again. */
const POLL_MS = 500;

/**
 * How far the import is, 0–100: the rows it has handled against the rows of the file (`expected`,
 * counted before sending; the api's `total` is the rows read so far). 100 once it is done.
 */
export function percent(job: ImportJob, expected: number | null): number {
  if (job.status === 'done') return 100;
  if (job.status === 'queued') return 0;
  const handled = job.created + job.skipped + job.failed;
  const of = Math.max(expected ?? 0, job.total);
  if (!of) return 0;
  const value = Math.floor((handled * 100) / of);
  // running: not 100 until the api says done
  return job.status === 'running' ? Math.min(99, value) : Math.min(100, value);
}

const STATUS: Record<ImportJob['status'], string> = {
  queued: 'Waiting for your earlier import to finish',
  running: 'Importing',
  done: 'Done',
  failed: 'Stopped',
};

/**
 * An import's progress (`GET /api/import/:id`, read every half second until it is done or
 * failed): a progress bar, then what it created, skipped and refused, each refused row with its
 * line and reason.
 */
export function ImportProgress(props: { id: number; expected: number | null; name?: string }) {
  const { id } = props;
  const [job, setJob] = useState<ImportJob | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const { data } = await call(client.GET('/api/import/{id}', { params: { path: { id } } }));
        if (stopped) return;
        setJob(data);
        setError(null);
        if (data.status === 'queued' || data.status === 'running')
          timer = setTimeout(read, POLL_MS);
      } catch (err) {
        if (stopped) return;
        const failure = toApiError(err);
        setError(failure);
        // a network blip: try again; an import that is not there: stop
        if (failure.status === 0 || failure.status >= 500) timer = setTimeout(read, POLL_MS * 4);
      }
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id]);

  if (!job)
    return (
      <section className="card import-job" aria-label="Import progress">
        {error ? (
          <p className="error" role="alert">
            The import could not be read: {error.message}
          </p>
        ) : (
          <p aria-busy="true">Starting the import…</p>
        )}
      </section>
    );

  const value = percent(job, props.expected);
  const handled = job.created + job.skipped + job.failed;
  const of = Math.max(props.expected ?? 0, job.total);
  const finished = job.status === 'done' || job.status === 'failed';
  return (
    <section className="card import-job" aria-labelledby={`import-${id}-title`}>
      <h2 id={`import-${id}-title`}>
        Import {id}
        {props.name ? `: ${props.name}` : ''}
      </h2>
      <div className="progress-line">
        <div
          className={`progress ${job.status}`}
          role="progressbar"
          aria-label="Import progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={value}
          aria-valuetext={`${value} %: ${handled} of ${of || '?'} rows`}
        >
          <div className="progress-fill" style={{ width: `${value}%` }} />
        </div>
        <span className="progress-value" aria-hidden="true">
          {value} %
        </span>
      </div>
      <p role="status" className="import-status">
        {STATUS[job.status]}
        {finished &&
          `: ${job.created} created, ${job.skipped} skipped, ${job.failed} failed (${job.source}).`}
      </p>
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {job.status === 'failed' && job.message && (
        <p className="error" role="alert">
          {job.message}
        </p>
      )}
      <dl className="import-counts">
        <div>
          <dt>Rows read</dt>
          <dd>{job.total}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd data-count="created">{job.created}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{job.skipped}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd data-count="failed">{job.failed}</dd>
        </div>
      </dl>
      {job.skipped > 0 && (
        <p className="hint">Skipped: an alias you have already, or a URL one of your links has.</p>
      )}
      {job.errors.length > 0 && (
        <>
          <h3>Refused rows</h3>
          {job.failed > job.errors.length && (
            <p className="hint">The first {job.errors.length} are listed.</p>
          )}
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Refused rows">
            <table className="refused">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {job.errors.map((e, i) => (
                  <tr key={`${e.line}-${i}`}>
                    <td>{e.line}</td>
                    <td>{e.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
