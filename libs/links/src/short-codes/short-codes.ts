import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

import {
  AppError,
  AuditLog,
  ConflictError,
  ForbiddenError,
  InvalidFieldError,
  parseDateTime,
  PlanService,
  Principal,
  PublicUrls,
  randomString,
} from '@app/common';
import { Domain, Link, LinkKind, PreparedStatement, queryPrepared } from '@app/database';
import { WebhookOutbox } from '@app/webhooks';

import { aliasProblem, generateAlias } from '../alias';
import { BatchedRow, InsertBatches } from './insert-batches';
import { linkEvent } from './link-event';

/**
 * Draws of a generated alias before giving up. At 10 million links a 7-character alias collides
 * once in ~350 000 creations (and every second draw is one character longer), so a second draw is
 * rare and an eighth one never happens short of a broken random source.
 */
export const GENERATE_ATTEMPTS = 8;

/**
 * Length of a QR code's generated short code (served at `/q/<code>`, never at `/<alias>`):
 * 62^8 ≈ 2·10^14 codes, short enough to keep the QR image small.
 */
export const QR_CODE_LENGTH = 8;

/**
 * Distinct insert statements (column sets, riders) kept as named prepared statements, each
 * parsed once per pooled connection; statements beyond these are sent unnamed.
 */
export const PREPARED_INSERTS = 64;

/** What a batch statement's text depends on: the column set and the CTEs (no rider). */
interface BatchShape {
  /** the one-link statement's shape key, which names these too */
  key: string;
  properties: string[];
  event: boolean;
  audit: boolean;
}

/** The body field a client names an alias with: `custom` (links, imports) or `alias` (bio pages). */
export type AliasField = 'custom' | 'alias';

/** One short code to create. */
export interface NewShortCode {
  kind: LinkKind;
  userId: number;
  /** the branded domain it is served on (null: PUBLIC_URL) */
  domain: Domain | null;
  /** the alias the client chose (refused with 409 / 403 naming `field`), or null: one is drawn */
  custom: string | null;
  field: AliasField;
  /** the other columns of the `links` row */
  values: Omit<Partial<Link>, 'userId' | 'kind' | 'domainId' | 'alias'>;
  /**
   * The audit entry the statement writes (AuditLog.createdCte), its resource the new row:
   * `{type: 'link', id}` for `link.create`; who made it comes from `auth` (actor, key).
   */
  audit?: ShortCodeAudit;
}

/** The audit entry of a created code (resource id: the new `links` row's id). */
export interface ShortCodeAudit {
  auth: Principal;
  action: string;
  type: string;
  /** the field names the client set (never values) */
  changes: readonly string[];
}

/** What one statement writes beside the new code (its row is the CTE `created`: `id`). */
export interface ShortCodeRider {
  /**
   * The statement's last part, reading `created` and answering the new `links` id as `id` (and
   * whatever else it returns); `first` is the number of its first parameter.
   */
  sql: (first: number) => string;
  params: unknown[];
}

/** One link of a batch (imports): the columns a batch writes. */
export interface NewBatchLink {
  custom: string | null;
  domain: Domain | null;
  values: Pick<Link, 'url' | 'title' | 'description' | 'expiresAt'>;
}

/**
 * Short codes: the one writer of `links` rows (short links, link imports, bio pages, QR codes).
 * It owns
 * - the alias rules a client's alias passes (`checkAlias`: the plan's `alias` feature, the shape,
 *   the reserved words; one message style, naming the caller's field),
 * - the insert, single or in batches, with a drawn alias when the client chose none: one
 *   `INSERT … ON CONFLICT (alias) DO NOTHING` loop (a taken alias, or one reserved by a takedown,
 *   whose trigger skips the row, answers no row: a drawn one is drawn again, a chosen one refused),
 * - the refusal of a chosen alias (409 taken; 403 when a takedown reserves it for the caller),
 * - the plan's `links` count (links, bio pages and QR codes of type link: `reserve`, `room`),
 * - the `link.created` outbox rows, written by the statement (or transaction) that inserts the
 *   links, so a link never exists without its event, nor the reverse; likewise the audit entry
 *   of a client's creation (`NewShortCode.audit`: a CTE of the same statement),
 * - the coalescing of creations outside a transaction: those of one turn of the event loop are
 *   written by one statement per shape (InsertBatches), each still with its own answer.
 *
 * The api and the worker (imports) both provide it; nothing else inserts into `links`.
 */
@Injectable()
export class ShortCodes {
  private linkMeta?: EntityMetadata;
  /** entity property → its `links` column */
  private readonly columns = new Map<string, ColumnMetadata>();
  /** a statement's shape (columns, CTEs, rider) → its text and name (PREPARED_INSERTS at most) */
  private readonly statements = new Map<string, PreparedStatement>();
  /** the same for the statements writing many links at once (InsertBatches) */
  private readonly batchStatements = new Map<string, PreparedStatement>();
  /** creations on the pool of one turn of the event loop, written together */
  private readonly batches = new InsertBatches<BatchShape>((shape, inputs) =>
    this.insertBatch(shape, inputs),
  );

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly urls: PublicUrls,
    private readonly outbox: WebhookOutbox,
  ) {}

  // ---- rules -----------------------------------------------------------------------------

  /** A client's alias: the plan feature `alias` (403), then its shape and the reserved words (400 naming `field`). */
  checkAlias(auth: Principal, field: AliasField, alias: string): void {
    this.plans.assertFeature(auth, 'alias');
    const problem = aliasProblem(alias);
    if (problem) throw new InvalidFieldError(field, problem);
  }

  /** 409 when another code has `alias` (an alias change, checked before the UPDATE). */
  async assertFree(em: EntityManager, field: AliasField, alias: string): Promise<void> {
    if (await em.exists(Link, { where: { alias } })) throw this.taken(field);
  }

  /**
   * Why `alias` cannot be created or taken by `userId` after the database refused it: a takedown
   * reserving it for the caller is a 403 saying so; anything else is the usual 409 (taken).
   */
  async refusal(
    field: string,
    alias: string,
    userId: number,
    em: EntityManager = this.db.manager,
  ): Promise<AppError> {
    const owner = await this.reservedFor(alias, em);
    return owner === userId ? this.reserved(field) : this.taken(field);
  }

  /** The owner a takedown reserves `alias` for, or null (Takedowns is the writer of `link_takedowns`). */
  async reservedFor(alias: string, em: EntityManager = this.db.manager): Promise<number | null> {
    const [row]: Array<{ user_id: number }> = await em.query(
      'SELECT user_id FROM link_takedowns WHERE alias = $1',
      [alias],
    );
    return row ? row.user_id : null;
  }

  taken(field: string): ConflictError {
    return new ConflictError(`${field}: this alias is already taken`);
  }

  reserved(field: string): ForbiddenError {
    return new ForbiddenError(
      `${field}: this alias was taken down by an administrator and stays reserved until they restore it`,
    );
  }

  // ---- the plan's links count --------------------------------------------------------------

  /** Whether the plan caps the caller's `links` count: a creation then takes the user's lock in a transaction. */
  counted(auth: Principal): boolean {
    return this.plans.linksCap(auth) > 0;
  }

  /** One more code of the `links` count, in `em`'s transaction (403 at the plan's cap). */
  reserve(em: EntityManager, auth: Principal): Promise<void> {
    return this.plans.reserveLink(em, auth);
  }

  /**
   * How many of `wanted` codes the plan's `links` count still allows (under the user's row lock
   * in `em`'s transaction, when the plan caps it), and the cap (0: none).
   */
  async room(
    em: EntityManager,
    auth: Principal,
    wanted: number,
  ): Promise<{ room: number; max: number }> {
    const max = this.plans.linksCap(auth);
    if (max === 0) return { room: wanted, max };
    await em.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [auth.user.id]);
    const left = Math.max(0, max - (await this.plans.linksOwned(em, auth.user.id)));
    return { room: Math.min(wanted, left), max };
  }

  // ---- writes ------------------------------------------------------------------------------

  /**
   * Inserts one code in one statement (a link: with its `link.created` outbox rows; `rider`: with
   * what it writes, e.g. the QR code's row). A chosen alias that is taken or reserved is refused
   * (409 / 403 naming `field`). Plain SQL from the entity's metadata: TypeORM's insert builder
   * cost more CPU than the rest of the insert. Answers the new id, alias and the statement's row.
   * Outside a transaction and without a rider, the statement may also write the other creations
   * of the turn (InsertBatches): the same rows, one commit.
   */
  async insert(
    em: EntityManager,
    code: NewShortCode,
    rider?: ShortCodeRider,
  ): Promise<{ id: number; alias: string; row: Record<string, unknown> }> {
    const values: Partial<Link> = {
      userId: code.userId,
      kind: code.kind,
      domainId: code.domain?.id ?? null,
      ...code.values,
    };
    // on the pool with nothing riding on it: written with the turn's other creations of its shape
    const runner = em.queryRunner;
    const pooled = !(runner && !runner.isReleased) && !rider;
    const properties: string[] = [];
    const params: unknown[] = [];
    // the columns' values as a batch statement's JSON input reads them (by column name)
    const input: Record<string, unknown> = {};
    for (const property in values) {
      const value = values[property as keyof Link];
      if (value === undefined) continue;
      const column = this.columnOf(property);
      properties.push(property);
      const prepared = this.db.driver.preparePersistentValue(value, column);
      params.push(prepared);
      // a JSON column's prepared value is its JSON text (after any transformer): the input holds
      // what that text says
      if (pooled)
        input[column.databaseName] =
          (column.type === 'jsonb' || column.type === 'json') && typeof prepared === 'string'
            ? JSON.parse(prepared)
            : prepared;
    }
    const n = properties.length;
    const event = code.kind === 'link';
    const audit = code.audit;
    // parameters: the columns, the alias, then the event's (2), the audit's (7), the rider's
    const auditFirst = n + (event ? 4 : 2);
    const riderFirst = auditFirst + (audit ? 7 : 0);
    const riderSql = rider ? rider.sql(riderFirst) : null;
    const shape = `${properties.join(',')}|${event ? 'e' : ''}${audit ? 'a' : ''}|${riderSql ?? ''}`;
    const statement = this.statement(shape, properties, event, !!audit, riderSql);
    const auditParams = audit ? AuditLog.cteParams(audit.auth, audit) : [];
    if (audit && pooled) Object.assign(input, AuditLog.createdBatchRow(auditParams));
    const date = new Date();
    const { url = '', title = '', description = '' } = values;
    const text = { url, title, description };
    const { placed, refused } = await this.draw([code], async ([alias]) => {
      const data = event ? linkEvent(this.urls, { ...text, alias }, code.domain, date) : null;
      const alone = () => {
        const args = [...params, alias];
        if (event) args.push(code.userId, JSON.stringify(data));
        args.push(...auditParams);
        if (rider) args.push(...rider.params);
        return queryPrepared<Record<string, unknown> & { id: number }>(
          this.db,
          statement,
          args,
          em,
        );
      };
      const rows: Array<Record<string, unknown>> = pooled
        ? await this.batches.submit({
            shape: { key: shape, properties, event, audit: !!audit },
            key: shape,
            alias,
            input: {
              ...input,
              alias,
              ...(event ? WebhookOutbox.createdBatchRow(code.userId, data as object) : {}),
            },
            alone,
          })
        : await alone();
      return new Map(rows.length ? [[alias, rows[0]]] : []);
    });
    if (refused.length)
      throw await this.refusal(code.field, code.custom as string, code.userId, em);
    const { alias, row } = placed[0];
    return { id: row.id as number, alias, row };
  }

  /** The `links` column of an entity property (looked up once: TypeORM searches every column). */
  private columnOf(property: string): ColumnMetadata {
    let column = this.columns.get(property);
    if (!column) {
      const meta = (this.linkMeta ??= this.db.getMetadata(Link));
      column = meta.findColumnWithPropertyName(property);
      if (!column) throw new Error(`links has no column for ${property}`);
      this.columns.set(property, column);
    }
    return column;
  }

  /**
   * The insert statement of a shape: the column set (the properties in order), with its
   * `link.created` and audit CTEs and the rider's part, and the name it is prepared under (none
   * beyond PREPARED_INSERTS). Kept per shape: a creation does not write out and hash its text again.
   */
  private statement(
    shape: string,
    properties: string[],
    event: boolean,
    audit: boolean,
    riderSql: string | null,
  ): PreparedStatement {
    const known = this.statements.get(shape);
    if (known) return known;
    const n = properties.length;
    const columns = properties.map((p) => `"${this.columnOf(p).databaseName}"`);
    const insert = `INSERT INTO links (${columns.join(', ')}, alias) VALUES (${columns
      .map((_, i) => `$${i + 1}`)
      .join(', ')}, $${n + 1}) ON CONFLICT (alias) DO NOTHING RETURNING id`;
    const auditFirst = n + (event ? 4 : 2);
    const ctes = [
      ...(event ? [WebhookOutbox.createdCte('created', n + 2, n + 3)] : []),
      ...(audit ? [AuditLog.createdCte('created', auditFirst)] : []),
    ];
    const text =
      ctes.length || riderSql !== null
        ? `WITH created AS (${insert})${ctes.map((c) => `, ${c}`).join('')} ${
            riderSql ?? 'SELECT id FROM created'
          }`
        : insert;
    return this.keep(this.statements, shape, text, 'short_codes_insert');
  }

  /**
   * Writes links of one shape at once (InsertBatches): the statement of `statement` for many
   * rows, its one parameter a JSON array of input rows (the columns by name, with the alias and
   * the CTEs' fields). Answers the inserted links' ids and aliases.
   */
  private async insertBatch(
    shape: BatchShape,
    inputs: Array<Record<string, unknown>>,
  ): Promise<BatchedRow[]> {
    let statement = this.batchStatements.get(shape.key);
    if (!statement) {
      const columns = shape.properties.map((p) => `"${this.columnOf(p).databaseName}"`);
      const fields = [
        ...(shape.event ? [WebhookOutbox.batchFields] : []),
        ...(shape.audit ? [AuditLog.batchFields] : []),
      ];
      // each row's links columns typed as the table's (jsonb_populate_record), the CTEs' apart
      const input = `SELECT l.*${fields.length ? ', x.*' : ''}
          FROM jsonb_array_elements($1::jsonb) e
         CROSS JOIN LATERAL jsonb_populate_record(NULL::links, e) l${
           fields.length
             ? `\n         CROSS JOIN LATERAL jsonb_to_record(e) AS x(${fields.join(', ')})`
             : ''
         }`;
      const ctes = [
        ...(shape.event ? [WebhookOutbox.createdBatchCte('created', 'input')] : []),
        ...(shape.audit ? [AuditLog.createdBatchCte('created', 'input')] : []),
      ];
      const text = `WITH input AS (${input}),
        created AS (
          INSERT INTO links (${columns.join(', ')}, alias)
          SELECT ${columns.map((c) => `i.${c}`).join(', ')}, i.alias FROM input i
          ON CONFLICT (alias) DO NOTHING RETURNING id, alias)${ctes.map((c) => `, ${c}`).join('')}
        SELECT id, alias FROM created`;
      statement = this.keep(this.batchStatements, shape.key, text, 'short_codes_batch');
    }
    return queryPrepared<BatchedRow>(this.db, statement, [JSON.stringify(inputs)]);
  }

  /** A statement kept under `key` with a name of `prefix` (sent unnamed and not kept beyond PREPARED_INSERTS). */
  private keep(
    kept: Map<string, PreparedStatement>,
    key: string,
    text: string,
    prefix: string,
  ): PreparedStatement {
    if (kept.size >= PREPARED_INSERTS) return { text };
    const prepared = { text, name: `${prefix}_${kept.size}` };
    kept.set(key, prepared);
    return prepared;
  }

  /**
   * Inserts links of one owner in batches (imports), with their `link.created` outbox rows, in
   * `em`'s transaction: one statement per draw. A chosen alias taken meanwhile is answered in
   * `refused` (the caller checked them before); the others in `created`, in order.
   */
  async insertMany<T extends NewBatchLink>(
    em: EntityManager,
    userId: number,
    links: T[],
  ): Promise<{ created: Array<{ id: number; alias: string; link: T }>; refused: T[] }> {
    const { placed, refused } = await this.draw(
      links.map((l) => ({ ...l, kind: 'link' as const, link: l })),
      async (chosen, pending) => {
        const rows: Array<{ id: number; alias: string }> = await em.query(
          `INSERT INTO links (user_id, kind, alias, domain_id, url, title, description, expires_at)
           SELECT $1, 'link', i.alias, i.domain_id, i.url, i.title, i.description, i.expires_at
             FROM unnest($2::varchar[], $3::int[], $4::text[], $5::varchar[], $6::varchar[], $7::timestamptz[])
               AS i(alias, domain_id, url, title, description, expires_at)
           ON CONFLICT (alias) DO NOTHING RETURNING id, alias`,
          [
            userId,
            chosen,
            pending.map((p) => p.domain?.id ?? null),
            pending.map((p) => p.values.url),
            pending.map((p) => p.values.title),
            pending.map((p) => p.values.description),
            pending.map((p) => p.values.expiresAt),
          ],
        );
        return new Map(rows.map((r) => [r.alias, r]));
      },
    );
    const date = new Date();
    const created = placed.map(({ item, alias, row }) => ({
      id: row.id as number,
      alias,
      link: item.link,
    }));
    await this.outbox.recordMany(
      em,
      userId,
      'link.created',
      created.map(({ id, alias, link }) =>
        linkEvent(this.urls, { id, alias, ...link.values }, link.domain, date),
      ),
    );
    return { created, refused: refused.map((r) => r.link) };
  }

  /**
   * The one alias loop: each pending code gets its chosen alias or a drawn one, `write` inserts
   * them (`ON CONFLICT (alias) DO NOTHING`) and answers the rows written by alias. A code without
   * a row was taken, or reserved by a takedown (the trigger skipped the row): a chosen alias is
   * refused, a drawn one drawn again, longer.
   */
  private async draw<T extends { kind: LinkKind; custom: string | null }, R>(
    codes: T[],
    write: (chosen: string[], pending: T[]) => Promise<Map<string, R>>,
  ): Promise<{ placed: Array<{ item: T; alias: string; row: R }>; refused: T[] }> {
    const placed: Array<{ item: T; alias: string; row: R }> = [];
    const refused: T[] = [];
    let pending = codes;
    for (let attempt = 0; pending.length && attempt < GENERATE_ATTEMPTS; attempt++) {
      const chosen = pending.map((c) => c.custom ?? drawAlias(c.kind, attempt));
      const rows = await write(chosen, pending);
      const again: T[] = [];
      pending.forEach((c, i) => {
        const row = rows.get(chosen[i]);
        if (row !== undefined) placed.push({ item: c, alias: chosen[i], row });
        else if (c.custom !== null) refused.push(c);
        else again.push(c);
      });
      pending = again;
    }
    if (pending.length) throw new Error('could not generate a free alias');
    return { placed, refused };
  }
}

/**
 * A drawn alias: a QR code's is QR_CODE_LENGTH random characters; the others' grow after
 * collisions and are never a reserved word (generateAlias).
 */
export function drawAlias(kind: LinkKind, attempt: number): string {
  return kind === 'qr' ? randomString(QR_CODE_LENGTH) : generateAlias(attempt);
}

/** An `expiry` field (`YYYY-MM-DD HH:MM:SS`, UTC): a future date, or null when absent. */
export function expiryDate(value: string | null | undefined): Date | null {
  if (value === undefined || value === null) return null;
  const date = parseDateTime(value);
  if (!date) throw new InvalidFieldError('expiry', 'must be a valid date-time YYYY-MM-DD HH:MM:SS');
  if (date.getTime() <= Date.now()) throw new InvalidFieldError('expiry', 'must be in the future');
  return date;
}
