import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import { EFFECTIVE_LIMITS_SQL } from '../auth/plan.service';
import { Principal } from '../auth/principal';

/** Entries one pruning statement deletes at most (`AuditLog.prune` repeats until fewer go). */
export const AUDIT_PRUNE_BATCH = 5000;

/**
 * One batch of entries older than their workspace's retention: the `retention` (days; 0 =
 * forever) of the owner's effective plan (EFFECTIVE_LIMITS_SQL: admins have no row, so keep
 * everything). The oldest bound narrows the scan to `audit_log_created_idx`.
 */
const PRUNE = `WITH kept AS (
    SELECT e.user_id, (e.limits ->> 'retention')::int AS days
      FROM (${EFFECTIVE_LIMITS_SQL}) e
     WHERE COALESCE((e.limits ->> 'retention')::int, 0) > 0
  ),
  gone AS (
    SELECT a.id FROM audit_log a JOIN kept k ON k.user_id = a.workspace_id
     WHERE a.created_at < now() - make_interval(days => k.days)
       AND a.created_at < now() - make_interval(days => (SELECT min(days) FROM kept))
     LIMIT $1
  )
  DELETE FROM audit_log WHERE id IN (SELECT id FROM gone)`;

/** One change to record: `link.update` of `{type: 'link', id: 7}`, fields `['url', 'title']`. */
export interface AuditChange {
  /** `<resource>.<verb>`: `link.create`, `link.update`, `link.delete`, `member.add`, … */
  action: string;
  resource: { type: string; id: number | string | null };
  /** Names of the fields set or changed; never values. */
  changes?: readonly string[];
}

/** The field names a body sets (its keys whose value is not undefined), sorted: an update's `changes`. */
export function fieldsOf(body: object | null | undefined): string[] {
  if (!body) return [];
  return Object.keys(body)
    .filter((k) => (body as Record<string, unknown>)[k] !== undefined)
    .sort();
}

const INSERT = `INSERT INTO audit_log
  (workspace_id, actor_id, actor_email, key_id, action, resource_type, resource_id, changes)
  SELECT $1, $2, $3, $4, a.action, a.type, a.id, a.changes
    FROM jsonb_to_recordset($5::jsonb) AS a(action varchar, type varchar, id varchar, changes text[])`;

/**
 * The audit log's one writer (CONTRACT "Teams, workspaces and API keys": every successful change
 * in a workspace writes one entry in the same transaction). A service calls `record` with the
 * EntityManager of the transaction that makes the change, so the entry exists exactly when the
 * change committed (the outbox pattern of the webhooks); `change` opens that transaction for a
 * service that has none. The actor, key and workspace come from the principal.
 */
@Injectable()
export class AuditLog {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * A CTE writing one entry per row of `source` (its `id` is the resource's id), for a statement
   * that creates the resource (ShortCodes' link insert): the change and its entry in one round
   * trip. Its parameters, from `first` on, are `AuditLog.cteParams` (7 of them).
   */
  static createdCte(source: string, first: number): string {
    const p = (i: number) => `$${first + i}`;
    return `audit AS (
      INSERT INTO audit_log
        (workspace_id, actor_id, actor_email, key_id, action, resource_type, resource_id, changes)
      SELECT ${p(0)}::int, ${p(1)}::int, ${p(2)}::varchar, ${p(3)}::int, ${p(4)}::varchar,
             ${p(5)}::varchar, c.id::text, ${p(6)}::text[]
        FROM ${source} c)`;
  }

  /**
   * `createdCte` for many resources at once: one entry per row of `source` (`id`, `alias`), with
   * the workspace, actor, key, action, type and fields of `input`'s row of the same alias
   * (`input` has the columns of `batchFields`, `createdBatchRow`'s values).
   */
  static createdBatchCte(source: string, input: string): string {
    return `audit AS (
      INSERT INTO audit_log
        (workspace_id, actor_id, actor_email, key_id, action, resource_type, resource_id, changes)
      SELECT i._audit_ws, i._audit_actor, i._audit_email, i._audit_key, i._audit_action,
             i._audit_type, c.id::text, i._audit_changes
        FROM ${source} c JOIN ${input} i ON i.alias = c.alias)`;
  }

  /** The columns `createdBatchCte` reads from its input (`jsonb_to_record`'s definition list). */
  static readonly batchFields =
    '_audit_ws int, _audit_actor int, _audit_email varchar, _audit_key int, _audit_action varchar, _audit_type varchar, _audit_changes text[]';

  /** One input row's fields of `createdBatchCte` (the values of `cteParams`, named). */
  static createdBatchRow(params: unknown[]): Record<string, unknown> {
    const [ws, actor, email, key, action, type, changes] = params;
    return {
      _audit_ws: ws,
      _audit_actor: actor,
      _audit_email: email,
      _audit_key: key,
      _audit_action: action,
      _audit_type: type,
      _audit_changes: changes,
    };
  }

  /** The parameters of `createdCte`: the workspace, actor and key of `auth`, the action, type and fields. */
  static cteParams(
    auth: Principal,
    change: { action: string; type: string; changes?: readonly string[] },
  ): unknown[] {
    return [
      auth.user.id,
      auth.actor.id,
      auth.actor.email,
      auth.key?.id ?? null,
      change.action,
      change.type,
      [...new Set(change.changes ?? [])].sort(),
    ];
  }

  record(em: EntityManager, auth: Principal, change: AuditChange): Promise<void> {
    return this.recordMany(em, auth, [change]);
  }

  /** Many entries of one request (a bulk change), in one statement. */
  async recordMany(
    em: EntityManager,
    auth: Principal,
    changes: readonly AuditChange[],
  ): Promise<void> {
    if (!changes.length) return;
    const rows = changes.map((c) => ({
      action: c.action,
      type: c.resource.type,
      id: c.resource.id === null ? null : String(c.resource.id),
      changes: [...new Set(c.changes ?? [])].sort(),
    }));
    await em.query(INSERT, [
      auth.user.id,
      auth.actor.id,
      auth.actor.email,
      auth.key?.id ?? null,
      JSON.stringify(rows),
    ]);
  }

  /**
   * Takes back the entry of a change that was undone after it committed (a creation whose job
   * could not be queued, an update put back: the client gets a 503 and nothing stays, the entry
   * included): the newest entry of that action on that resource.
   */
  async withdraw(auth: Principal, change: AuditChange): Promise<void> {
    await this.db.query(
      `DELETE FROM audit_log WHERE id = (
         SELECT max(id) FROM audit_log
          WHERE workspace_id = $1 AND action = $2 AND resource_type = $3 AND resource_id = $4)`,
      [auth.user.id, change.action, change.resource.type, String(change.resource.id)],
    );
  }

  /**
   * Deletes the entries older than each workspace's plan keeps, AUDIT_PRUNE_BATCH a statement
   * (short transactions, never one huge DELETE); the worker runs it hourly beside statistics
   * retention. Answers how many went.
   */
  async prune(batch = AUDIT_PRUNE_BATCH): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted] = (await this.db.query(PRUNE, [batch])) as [unknown, number];
      total += deleted;
      if (deleted < batch) return total;
    }
  }

  /** A `then` for PlanService.createCounted: records `<type>.create` of the saved row, in its transaction. */
  created(
    auth: Principal,
    type: string,
    changes: readonly string[],
  ): (em: EntityManager, saved: { id: number }) => Promise<void> {
    return (em, saved) =>
      this.record(em, auth, {
        action: `${type}.create`,
        resource: { type, id: saved.id },
        changes,
      });
  }

  /** Runs `work` in a transaction and records the change in it (its id from work's result when `id` is a function). */
  change<T>(
    auth: Principal,
    change: Omit<AuditChange, 'resource'> & {
      resource: { type: string; id: number | string | null | ((result: T) => number | string) };
    },
    work: (em: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction(async (em) => {
      const result = await work(em);
      const { id } = change.resource;
      await this.record(em, auth, {
        ...change,
        resource: { type: change.resource.type, id: typeof id === 'function' ? id(result) : id },
      });
      return result;
    });
  }
}
