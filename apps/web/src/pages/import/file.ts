/**
 * Reading the chosen file before it is sent: how many rows it has (so that the progress bar can
 * say how far the import is: the api's `total` is the rows read so far), and a JSON file's links.
 */

/** The data rows of a CSV text: its records (quoted newlines kept inside), minus the header. */
export function countCsvRows(text: string): number {
  let records = 0;
  let quoted = false;
  let content = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      quoted = !quoted;
      content = true;
    } else if (c === 10 /* \n */ && !quoted) {
      if (content) records += 1;
      content = false;
    } else if (c !== 13 /* \r */ && c !== 32 && c !== 9) content = true;
  }
  if (content) records += 1;
  return Math.max(0, records - 1);
}

/**
 * The link objects of a JSON file: an array, `{links: [...]}`, or an export's `{data: [...]}`
 * (Kutt's `GET /api/v2/links`). Null when the text is not one of those.
 */
export function jsonLinks(text: string): Record<string, unknown>[] | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? ((value as { links?: unknown; data?: unknown }).links ?? (value as { data?: unknown }).data)
      : undefined;
  if (!Array.isArray(list)) return null;
  return list.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
}

/** Whether a file is JSON (by its type or name), else it is sent as CSV. */
export const isJsonFile = (file: File) =>
  file.type === 'application/json' || /\.json$/i.test(file.name);
