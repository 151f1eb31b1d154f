import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import {
  AppError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ShortCodeTakedownEvent,
} from '@app/common';
import { isUniqueViolation, LinkKind } from '@app/database';

import { LinkCache } from '../link-cache/link-cache';

/** What `PUT /api/admin/url/:id/disable|enable` names: any short code by its `links` id, or one kind. */
export type TakedownKind = LinkKind;

const NAMES: Record<LinkKind, string> = { link: 'Link', bio: 'Bio page', qr: 'QR code' };

/** The unique violation the takedown trigger raises for an UPDATE (migration 1732200010000). */
export const TAKEDOWN_CONSTRAINT = 'links_alias_takedown';

/**
 * Admin takedowns of short codes (links, bio pages, QR codes) and the aliases they reserve: the
 * one writer of `link_takedowns`.
 *
 * Disabling a code sets `links.disabled_at` (the redirector, the bio and QR handlers answer the
 * 451 page) and reserves its alias for its owner in `link_takedowns`, in one statement. The
 * reservation outlives the code: its owner may delete it, but the alias cannot be created again,
 * by them or anyone (the trigger `links_takedown_guard` skips such an INSERT, whichever feature
 * writes it, and generated aliases draw again). Enabling (by the same id, also after the code was
 * deleted) clears both. Cached answers are dropped on every replica (LinkCache; QR codes through
 * ShortCodeTakedownEvent).
 */
@Injectable()
export class Takedowns {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cache: LinkCache,
    private readonly events: EventEmitter2,
  ) {}

  /**
   * `id`: a short code's `links` id (a link's or bio page's id as their routes show it); with
   * `kind` the code must be of that kind, and for `qr` `id` is the QR code's id (`/api/qr/:id`).
   * Answers the kind of what changed; 404 when nothing has that id.
   */
  async set(id: number, disabled: boolean, kind?: TakedownKind): Promise<LinkKind> {
    const ref = kind === 'qr' ? 'qr_id' : 'link_id';
    // a CTE makes the driver answer rows (an UPDATE alone answers [rows, count])
    const rows: Array<{ alias: string; kind: LinkKind }> = disabled
      ? await this.db.query(
          `WITH code AS (${this.codeSql(kind)}),
                changed AS (
                  UPDATE links l SET disabled_at = COALESCE(l.disabled_at, now()), updated_at = now()
                    FROM code WHERE l.id = code.link_id
                  RETURNING l.id, l.alias, l.user_id, l.kind, l.domain_id, code.qr_id),
                reserved AS (
                  INSERT INTO link_takedowns (alias, user_id, link_id, qr_id, kind, domain_id)
                  SELECT alias, user_id, id, qr_id, kind, domain_id FROM changed
                  ON CONFLICT (alias) DO NOTHING)
           SELECT alias, kind FROM changed`,
          [id, kind ?? null],
        )
      : await this.db.query(
          `WITH code AS (${this.codeSql(kind)}),
                changed AS (
                  UPDATE links l SET disabled_at = NULL, updated_at = now()
                    FROM code WHERE l.id = code.link_id RETURNING l.alias, l.kind),
                released AS (
                  DELETE FROM link_takedowns
                   WHERE ${ref} = $1 AND ($2::varchar IS NULL OR kind = $2) RETURNING alias, kind)
           SELECT alias, kind FROM changed UNION SELECT alias, kind FROM released`,
          [id, kind ?? null],
        );
    if (!rows.length) throw new NotFoundError(kind ? NAMES[kind] : 'Link');
    const aliases = [...new Set(rows.map((r) => r.alias))];
    await this.cache.forget({ aliases });
    const what = rows[0].kind;
    await this.events.emitAsync(
      ShortCodeTakedownEvent.event,
      new ShortCodeTakedownEvent(what, aliases, disabled),
    );
    return what;
  }

  /** The display name of a kind ("Bio page"). */
  static nameOf(kind: LinkKind): string {
    return NAMES[kind];
  }

  /**
   * Why `alias` cannot be created or taken by `userId` after the database refused it: a takedown
   * of the caller's own is a 403 saying so; anything else is the usual 409 (taken).
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

  /**
   * The error for a refused alias change (an UPDATE of `links.alias`): a unique violation of the
   * alias index or of the takedown trigger (a reserved alias, or the code itself was disabled
   * meanwhile) becomes a 403 / 409; anything else is returned as is, to be rethrown.
   */
  async updateRefusal(
    err: unknown,
    field: string,
    alias: string,
    userId: number,
  ): Promise<unknown> {
    if (!isUniqueViolation(err)) return err;
    const owner = await this.reservedFor(alias);
    if (owner !== null) return owner === userId ? this.reserved(field) : this.taken(field);
    return isUniqueViolation(err, TAKEDOWN_CONSTRAINT) ? this.frozen(field) : this.taken(field);
  }

  /** A disabled code keeps its alias (its takedown reserves that one). */
  frozen(field: string): ForbiddenError {
    return new ForbiddenError(
      `${field}: this short code was taken down by an administrator; its alias cannot change`,
    );
  }

  private async reservedFor(alias: string, em = this.db.manager): Promise<number | null> {
    const [row]: Array<{ user_id: number }> = await em.query(
      'SELECT user_id FROM link_takedowns WHERE alias = $1',
      [alias],
    );
    return row ? row.user_id : null;
  }

  private reserved(field: string): ForbiddenError {
    return new ForbiddenError(
      `${field}: this alias was taken down by an administrator and stays reserved until they restore it`,
    );
  }

  private taken(field: string): ConflictError {
    return new ConflictError(`${field}: this alias is already taken`);
  }

  /** `link_id` (and `qr_id` for QR codes) of the code `$1` names (`$2`: its kind or null). */
  private codeSql(kind?: TakedownKind): string {
    return kind === 'qr'
      ? `SELECT q.link_id, q.id AS qr_id FROM qr_codes q WHERE q.id = $1 AND $2::varchar = 'qr'`
      : `SELECT l.id AS link_id, q.id AS qr_id FROM links l LEFT JOIN qr_codes q ON q.link_id = l.id
          WHERE l.id = $1 AND ($2::varchar IS NULL OR l.kind = $2)`;
  }
}
