/**
 * Creations that reach the database in the same turn of the event loop leave as one statement.
 *
 * A link's creation outside a transaction is one `INSERT` (ShortCodes.insert). Postgres spends
 * most of it on what every statement pays whatever its rows (the executor's start, the triggers'
 * statement-level work, the commit and its WAL flush, waking the backend): ~470 µs of its CPU a
 * link alone, ~200 µs a link four at a time (pgbench, prepared, the full statement). Under load
 * the creations of many clients arrive together (their rate-limit answers come in one Redis
 * reply), so the ones of one turn are queued here and written at the turn's end by one statement
 * per shape (the same columns and CTEs), up to BATCH_MAX links each.
 *
 * Nothing changes for a creation: its alias is still checked by the unique index (`ON CONFLICT
 * DO NOTHING`: a link whose alias was taken, or is reserved by a takedown, is answered no row, as
 * alone), its `link.created` and audit rows are written by the same statement, and its answer is
 * its own row. A batch holds distinct aliases (a duplicate goes to the next one, so a link's row
 * is found by its alias). When a batch's statement fails, its links are written again one by
 * one, so each gets its own answer or error. A turn with one creation sends the one-link
 * statement as before.
 */

/** Links one batch statement writes at most. */
export const BATCH_MAX = 100;

/** A row a batch statement answers: the new link's id and its alias. */
export interface BatchedRow {
  id: number;
  alias: string;
}

/** One creation waiting for its turn's end. */
export interface BatchEntry<S> {
  /** the batch statement's shape (entries of one shape can share a statement) */
  shape: S;
  /** the shape's key (the same shape: the same key) */
  key: string;
  alias: string;
  /** its row of the batch statement's input */
  input: Record<string, unknown>;
  /** writes this creation alone (its one-link statement): its rows */
  alone: () => Promise<Array<{ id: number }>>;
}

interface Waiting<S> extends BatchEntry<S> {
  resolve: (rows: Array<{ id: number }>) => void;
  reject: (err: unknown) => void;
}

export class InsertBatches<S> {
  private queue = new Map<string, Array<Waiting<S>>>();
  private scheduled = false;

  /** `write`: one statement for the entries' `input` rows of `shape`, answering the links it inserted. */
  constructor(
    private readonly write: (
      shape: S,
      inputs: Array<Record<string, unknown>>,
    ) => Promise<BatchedRow[]>,
  ) {}

  /** Queues a creation for its turn's end: its rows (none when its alias was not free). */
  submit(entry: BatchEntry<S>): Promise<Array<{ id: number }>> {
    return new Promise((resolve, reject) => {
      const same = this.queue.get(entry.key);
      const waiting = { ...entry, resolve, reject };
      if (same) same.push(waiting);
      else this.queue.set(entry.key, [waiting]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const queue = this.queue;
    this.queue = new Map();
    this.scheduled = false;
    for (const entries of queue.values())
      for (const batch of batches(entries)) void this.send(batch);
  }

  private async send(batch: Array<Waiting<S>>): Promise<void> {
    if (batch.length === 1) return this.alone(batch[0]);
    let rows: BatchedRow[];
    try {
      rows = await this.write(
        batch[0].shape,
        batch.map((e) => e.input),
      );
    } catch {
      // one link's error fails the statement: each is written alone, with its own answer
      await Promise.all(batch.map((e) => this.alone(e)));
      return;
    }
    const ids = new Map(rows.map((r) => [r.alias, r.id]));
    for (const e of batch) {
      const id = ids.get(e.alias);
      e.resolve(id === undefined ? [] : [{ id }]);
    }
  }

  private async alone(e: Waiting<S>): Promise<void> {
    try {
      e.resolve(await e.alone());
    } catch (err) {
      e.reject(err);
    }
  }
}

/** Entries of one shape in batches of at most BATCH_MAX distinct aliases, in arrival order. */
export function batches<T extends { alias: string }>(entries: T[]): T[][] {
  const out: Array<{ items: T[]; aliases: Set<string> }> = [];
  for (const e of entries) {
    let batch = out.find((b) => b.items.length < BATCH_MAX && !b.aliases.has(e.alias));
    if (!batch) {
      batch = { items: [], aliases: new Set() };
      out.push(batch);
    }
    batch.items.push(e);
    batch.aliases.add(e.alias);
  }
  return out.map((b) => b.items);
}
