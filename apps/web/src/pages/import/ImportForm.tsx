import { FormEvent, useRef, useState } from 'react';

import { ApiError, call, client } from '../../api';
import { Field, FormError, toApiError } from '../../ui';
import { countCsvRows, isJsonFile, jsonLinks } from './file';
import { ImportSource, SOURCE_IDS, sourceInfo } from './sources';

/** An error of this form's own checks, shown by the field it names. */
class FieldError extends ApiError {
  override readonly field: string;
  constructor(field: string, message: string) {
    super(message, 0);
    this.field = field;
  }
}

/** The API's names for what the file field shows (its body: a CSV, or JSON links / csv). */
const FILE_NAMES = ['file', 'csv', 'links'];
const NAMES = [...FILE_NAMES, 'source'];

/**
 * "CSV file", its source layout, and "Import": the file goes to `POST /api/import?source=` as a
 * `text/csv` body (a `.json` file as `{links: [...]}`); `onStarted` gets the import's id and the
 * rows the file holds.
 */
export function ImportForm(props: {
  onStarted: (started: { id: number; expected: number | null; name: string }) => void;
}) {
  const [source, setSource] = useState<ImportSource>('csv');
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!file) {
      setError(new FieldError('file', 'Choose a file to import.'));
      fileInput.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const text = await file.text();
      let started: { id: number };
      let expected: number | null;
      if (isJsonFile(file)) {
        const links = jsonLinks(text);
        if (!links)
          throw new FieldError(
            'file',
            'This JSON file holds no list of links: an array, {links: [...]} or {data: [...]}.',
          );
        expected = links.length;
        started = await call(
          client.POST('/api/import', { params: { query: { source } }, body: { links } }),
        );
      } else {
        expected = countCsvRows(text);
        started = await call(
          client.POST('/api/import', {
            params: { query: { source } },
            body: text,
            headers: { 'Content-Type': 'text/csv' },
            bodySerializer: (body: unknown) => body as string,
          }),
        );
      }
      props.onStarted({ id: started.id, expected, name: file.name });
    } catch (err) {
      const failure = toApiError(err);
      setError(failure);
      fileInput.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const info = sourceInfo(source);
  return (
    <form className="card import-form" onSubmit={submit} aria-label="Import links" noValidate>
      <Field
        label="Source"
        names={['source']}
        error={error}
        hint={`Columns read: ${info.columns}.`}
      >
        <select value={source} onChange={(e) => setSource(e.target.value as ImportSource)}>
          {SOURCE_IDS.map((s) => (
            <option key={s} value={s}>
              {sourceInfo(s).name}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="CSV file"
        names={FILE_NAMES}
        error={error}
        hint="A header row naming the columns, up to 20 MB (a .json file of link objects: up to 1 MB)."
      >
        <input
          ref={fileInput}
          type="file"
          accept=".csv,text/csv,.json,application/json"
          onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        />
      </Field>
      <FormError error={error} names={NAMES} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Import
        </button>
      </div>
    </form>
  );
}
