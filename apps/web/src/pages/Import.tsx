import './import.css';

import { useState } from 'react';

import { navigate } from '../router';
import { PageHead } from '../ui';
import { ImportForm } from './import/ImportForm';
import { ImportProgress } from './import/ImportProgress';

/**
 * The import page (`/import`; an import's progress at `/import/<id>`, so that a reload keeps
 * following it): a file of this service or of another, sent to the worker's import job, and its
 * progress to the end with every refused row.
 */
export function ImportPage(props: { sub: string }) {
  const match = /^\/(\d+)\/?$/.exec(props.sub);
  const id = match ? Number(match[1]) : null;
  // what the form knew of the file it sent (its rows), for the progress bar
  const [sent, setSent] = useState<{ id: number; expected: number | null; name: string } | null>(
    null,
  );
  const known = sent && sent.id === id ? sent : null;
  return (
    <>
      <PageHead title="Import" />
      <p className="hint import-intro">
        Bring links from a file: rows whose alias (or, without an alias, whose URL) you have already
        are skipped, so importing a file twice creates nothing new.
      </p>
      <ImportForm
        onStarted={(started) => {
          setSent(started);
          navigate(`/import/${started.id}`);
        }}
      />
      {id !== null && (
        <ImportProgress
          key={id}
          id={id}
          expected={known ? known.expected : null}
          name={known?.name}
        />
      )}
      {props.sub && props.sub !== '/' && id === null && (
        <p className="error" role="alert">
          There is nothing at this address in Import.
        </p>
      )}
    </>
  );
}
