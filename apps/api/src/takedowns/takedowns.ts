import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

import {
  AuditLog,
  ForbiddenError,
  NotFoundError,
  Principal,
  ShortCodeTakedownEvent,
} from '@app/common';
import { isUniqueViolation, LinkKind } from '@app/database';
import { ShortCodes } from '@app/links';

import { LinkCache } from '../link-cache/link-cache';

/** What `PUT /api/admin/url/:id/disable|enable` names: any short code by its `links` id, or one kind. */
export type TakedownKind = LinkKind;

const NAMES: Record<LinkKind, string> = { link: 'Link', bio: 'Bio page', qr: 'QR code' };

/** The unique violation the takedown trigger raises for an UPDATE (migration 1732200010000). */
export const TAKEDOWN_CONSTRAINT = 'links_alias_takedown';

/**
 * Admin takedowns of short codes (links, bio pages, QR codes) and the aliases they reserve: the
 * one writer of `link_takedowns` (ShortCodes reads it to refuse a reserved alias on creation).
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
    private readonly codes: ShortCodes,
    private readonly audit: AuditLog,
  ) {}

  /**
   * `id`: a short code's `links` id (a link's or bio page's id as their routes show it); with
   * `kind` the code must be of that kind, and for `qr` `id` is the QR code's id (`/api/qr/:id`).
   * Answers the kind of what changed; 404 when nothing has that id. The audit entry
   * (`<kind>.disable` / `<kind>.enable` of the id named) goes to the admin's own workspace.
   */
  async set(
    auth: Principal,
    id: number,
    disabled: boolean,
    kind?: TakedownKind,
  ): Promise<LinkKind> {
    const rows = await this.db.transaction(async (em) => {
      const rows = await this.write(em, id, disabled, kind);
      if (!rows.length) throw new NotFoundError(kind ? NAMES[kind] : 'Link');
      // the id as named: a QR code's own id with `kind=qr`, else a `links` id (a QR code's link)
      const type = kind === 'qr' ? 'qr' : rows[0].kind === 'bio' ? 'bio' : 'link';
      await this.audit.record(em, auth, {
        action: `${type}.${disabled ? 'disable' : 'enable'}`,
        resource: { type, id },
        changes: ['disabled'],
      });
      return rows;
    });
    const aliases = [...new Set(rows.map((r) => r.alias))];
    await this.cache.forget({ aliases });
    const what = rows[0].kind;
    await this.events.emitAsync(
      ShortCodeTakedownEvent.event,
      new ShortCodeTakedownEvent(what, aliases, disabled),
    );
    return what;
  }

  private write(
    em: EntityManager,
    id: number,
    disabled: boolean,
    kind?: TakedownKind,
  ): Promise<Array<{ alias: string; kind: LinkKind }>> {
    const ref = kind === 'qr' ? 'qr_id' : 'link_id';
    // a CTE makes the driver answer rows (an UPDATE alone answers [rows, count])
    return disabled
      ? em.query(
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
      : em.query(
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
  }

  /** The display name of a kind ("Bio page"). */
  static nameOf(kind: LinkKind): string {
    return NAMES[kind];
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
    const owner = await this.codes.reservedFor(alias);
    if (owner !== null)
      return owner === userId ? this.codes.reserved(field) : this.codes.taken(field);
    return isUniqueViolation(err, TAKEDOWN_CONSTRAINT)
      ? this.frozen(field)
      : this.codes.taken(field);
  }

  /** A disabled code keeps its alias (its takedown reserves that one). */
  frozen(field: string): ForbiddenError {
    return new ForbiddenError(
      `${field}: this short code was taken down by an administrator; its alias cannot change`,
    );
  }

  /** `link_id` (and `qr_id` for QR codes) of the code `$1` names (`$2`: its kind or null). */
  private codeSql(kind?: TakedownKind): string {
    return kind === 'qr'
      ? `SELECT q.link_id, q.id AS qr_id FROM qr_codes q WHERE q.id = $1 AND $2::varchar = 'qr'`
      : `SELECT l.id AS link_id, q.id AS qr_id FROM links l LEFT JOIN qr_codes q ON q.link_id = l.id
          WHERE l.id = $1 AND ($2::varchar IS NULL OR l.kind = $2)`;
  }
}
