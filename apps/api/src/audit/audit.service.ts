import { Injectable } from '@nestjs/common';

import {
  formatDateTime,
  InvalidFieldError,
  ListBudget,
  pageRequest,
  Paginated,
  parseDateTime,
  Principal,
} from '@app/common';

import { AuditEntryView } from './dto/audit-entry.view';
import { ListAuditDto } from './dto/list-audit.dto';

/** One row of the page, as the list's statement answers it. */
interface EntryRow {
  id: string;
  created_at: string;
  actor_id: number | null;
  actor_email: string;
  key_id: number | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  changes: string[];
}

const DAY_MS = 86_400_000;

/**
 * A `from` / `to` bound as an instant: a day starts at 00:00 UTC; `end` (for `to`) is the
 * instant just after it: the next day, or the next second of a date-time. 400 naming `field`
 * for a date the calendar has not.
 */
export function parseBound(field: string, value: string, end: boolean): Date {
  const dateTime = value.length === 10 ? `${value} 00:00:00` : value;
  const date = parseDateTime(dateTime);
  if (!date) throw new InvalidFieldError(field, 'is not a real date');
  if (!end) return date;
  return new Date(date.getTime() + (value.length === 10 ? DAY_MS : 1000));
}

/**
 * `GET /api/audit`: one page of the workspace's entries, newest first, within ListBudget like the
 * other lists (on a replica, or the primary for a caller who wrote lately). Unfiltered, `result`
 * is the workspace's maintained count (`audit_counts`, kept by triggers: migration AuditCounts)
 * and the page's ids an index scan of `audit_log_workspace_idx` (workspace, id DESC) to the
 * page's offset: a page costs its depth, not the workspace's entries. Filtered, `result` counts
 * the matches exactly (with `from` / `to`, only the range's entries, from
 * `audit_log_workspace_created_idx` alone): past the budget a 503 saying to narrow the dates.
 * Either way the total and the page come from one statement (one snapshot: they agree), and only
 * the page's rows are read.
 */
@Injectable()
export class AuditService {
  constructor(private readonly budget: ListBudget) {}

  async list(auth: Principal, query: ListAuditDto): Promise<Paginated<AuditEntryView>> {
    const { limit, page, offset } = pageRequest(query);
    const params: unknown[] = [auth.user.id];
    const param = (value: unknown) => `$${params.push(value)}`;
    const where = ['a.workspace_id = $1'];
    const from = query.from !== undefined ? parseBound('from', query.from, false) : null;
    const until = query.to !== undefined ? parseBound('to', query.to, true) : null;
    if (from && until && until <= from)
      throw new InvalidFieldError('to', 'must not be before from');
    if (from) where.push(`a.created_at >= ${param(from)}`);
    if (until) where.push(`a.created_at < ${param(until)}`);
    if (query.action?.endsWith('.*'))
      where.push(`starts_with(a.action, ${param(query.action.slice(0, -1))})`);
    else if (query.action !== undefined) where.push(`a.action = ${param(query.action)}`);
    if (query.actor !== undefined) where.push(`a.actor_id = ${param(query.actor)}`);
    const filtered = where.length > 1;
    const filter = where.join(' AND ');
    const window = `OFFSET ${param(offset)} LIMIT ${param(limit)}`;
    // unfiltered: the maintained count, and the page's ids from the workspace's index in order, as
    // far as the page goes. With dates: the range's ids read once from the (workspace, created_at)
    // index, counted, and the page's taken from them (fenced, so that the page's LIMIT cannot
    // lead the planner to walk the workspace's index from its newest entry back to an old range).
    // Without: a count the planner may run in parallel workers, and the page in id order.
    const dated = from !== null || until !== null;
    const matches = dated
      ? `WITH m AS MATERIALIZED (SELECT a.id FROM audit_log a WHERE ${filter}) `
      : '';
    const total = dated
      ? `SELECT count(*) FROM m`
      : filtered
        ? `SELECT count(*) FROM audit_log a WHERE ${filter}`
        : `SELECT COALESCE(sum(n), 0) FROM audit_counts WHERE workspace_id = $1`;
    const ids = dated
      ? `SELECT id FROM m ORDER BY id DESC ${window}`
      : `SELECT a.id FROM audit_log a WHERE ${filter} ORDER BY a.id DESC ${window}`;

    const { rows, count } = await this.budget.run(
      auth.user.id,
      'The audit log',
      async (em) => {
        const [row]: Array<{ count: number; rows: EntryRow[] }> = await em.query(
          `${matches}SELECT (${total})::int AS count,
                  COALESCE((SELECT json_agg(p ORDER BY p.id DESC) FROM (
                    SELECT e.id, e.created_at, e.actor_id, e.actor_email, e.key_id, e.action,
                           e.resource_type, e.resource_id, e.changes
                      FROM audit_log e
                     WHERE e.workspace_id = $1 AND e.id = ANY(ARRAY(${ids}))) p), '[]') AS rows`,
          params,
        );
        return row;
      },
      {
        replica: true,
        hint: filtered
          ? 'its filters select too many entries to count in time; narrow from and to'
          : undefined,
      },
    );
    return new Paginated('entries', rows.map(entryView), count, limit, page);
  }
}

/** The documented entry of a row (resource ids the API numbers are numbers). */
function entryView(r: EntryRow): AuditEntryView {
  const id = r.resource_id;
  return {
    id: Number(r.id),
    date: formatDateTime(new Date(r.created_at)) as string,
    actor: { id: r.actor_id, email: r.actor_email },
    key: r.key_id,
    action: r.action,
    resource: { type: r.resource_type, id: id !== null && /^\d{1,15}$/.test(id) ? Number(id) : id },
    changes: r.changes,
  };
}
