import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, DeepPartial, FindOptionsWhere } from 'typeorm';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import {
  assertSendsAField,
  AuditLog,
  fieldsOf,
  NotFoundError,
  PageQueryDto,
  paginateOwn,
  Paginated,
  PlanService,
  Principal,
  storedUrl,
} from '@app/common';
import { DestinationPolicy } from '@app/links';

import { LinkCache } from '../link-cache/link-cache';
import { LinkPageKind, LinkPageRow } from './link-page-kind';

/** The columns a body changes: only the fields it sends; URLs stored normalised ('' stays ''). */
function columnsOf<R extends LinkPageRow, B, V, D>(
  kind: LinkPageKind<R, B, V, D>,
  body: Partial<B>,
): DeepPartial<R> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(kind.columns) as Array<keyof B & string>) {
    const value = body[field];
    if (value === undefined) continue;
    const isUrl = kind.urlFields.includes(field) && typeof value === 'string' && value !== '';
    out[kind.columns[field]] = isUrl ? storedUrl(value) : value;
  }
  return out as DeepPartial<R>;
}

/**
 * CTA overlays and custom splash pages (LinkPageKind): a user's pages, counted by the plan; a
 * change shows at once on the links showing the page, a deletion makes those links direct.
 */
@Injectable()
export class LinkPages {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly plans: PlanService,
    private readonly cache: LinkCache,
    private readonly destinations: DestinationPolicy,
    private readonly audit: AuditLog,
  ) {}

  list<R extends LinkPageRow, B, V, D>(
    kind: LinkPageKind<R, B, V, D>,
    auth: Principal,
    query: PageQueryDto,
  ): Promise<Paginated<V>> {
    const pages = this.db.getRepository(kind.entity);
    return paginateOwn(pages, auth.user.id, query, kind.listKey, kind.view);
  }

  async get<R extends LinkPageRow, B, V, D>(
    kind: LinkPageKind<R, B, V, D>,
    auth: Principal,
    id: number,
  ): Promise<{ data: D }> {
    const row = await this.db.getRepository(kind.entity).findOneBy(this.own(auth, id));
    if (!row) throw new NotFoundError(kind.label);
    return { data: kind.detailsView(row) };
  }

  /** 403 past the plan's count of the kind (PlanService.createCounted). */
  async add<R extends LinkPageRow, B, V, D>(
    kind: LinkPageKind<R, B, V, D>,
    auth: Principal,
    body: B,
  ): Promise<{ id: number }> {
    await this.checkUrls(kind, body);
    const saved = await this.plans.createCounted(
      auth,
      kind.type,
      kind.entity,
      columnsOf(kind, body),
      this.audit.created(auth, kind.type, fieldsOf(body as object)),
    );
    return { id: saved.id };
  }

  async update<R extends LinkPageRow, B, V, D>(
    kind: LinkPageKind<R, B, V, D>,
    auth: Principal,
    id: number,
    body: Partial<B>,
  ): Promise<void> {
    assertSendsAField(body);
    const changes = columnsOf(kind, body);
    await this.checkUrls(kind, body);
    const audited = {
      action: `${kind.type}.update`,
      resource: { type: kind.type, id },
      changes: fieldsOf(body as object),
    };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em
        .getRepository(kind.entity)
        .update(this.own(auth, id), changes as QueryDeepPartialEntity<R>);
      if (!result.affected) throw new NotFoundError(kind.label);
    });
    // links showing this page carry its content in the redirector's cache
    await this.cache.forgetLinksUsing(kind.type, id);
  }

  /** Links that showed the page become direct links (on every replica at once). */
  async remove<R extends LinkPageRow, B, V, D>(
    kind: LinkPageKind<R, B, V, D>,
    auth: Principal,
    id: number,
  ): Promise<void> {
    const cached = await this.cache.affectedBy(kind.type, id);
    // the table and column names come from the entity and the kind, never from the request
    const table = this.db.getMetadata(kind.entity).tableName;
    const column = `${kind.type}_id`;
    await this.db.transaction(async (em) => {
      const rows: Array<{ id: number }> = await em.query(
        `SELECT id FROM ${table} WHERE id = $1 AND user_id = $2 FOR UPDATE`,
        [id, auth.user.id],
      );
      if (!rows.length) throw new NotFoundError(kind.label);
      await em.query(
        `UPDATE links SET type = CASE WHEN type = $2 THEN 'direct' ELSE type END,
                          ${column} = NULL, updated_at = now()
          WHERE ${column} = $1`,
        [id, kind.type],
      );
      await em.query(`DELETE FROM ${table} WHERE id = $1`, [id]);
      await this.audit.record(em, auth, {
        action: `${kind.type}.delete`,
        resource: { type: kind.type, id },
      });
    });
    await this.cache.forget(cached);
  }

  /** The caller's row `id` (another user's is unknown: 404). */
  private own<R extends LinkPageRow>(auth: Principal, id: number): FindOptionsWhere<R> {
    return { id, userId: auth.user.id } as FindOptionsWhere<R>;
  }

  /** The page's URLs (a button's link, an image) may not be blocked destinations. */
  private async checkUrls<R extends LinkPageRow, B, V, D>(
    kind: LinkPageKind<R, B, V, D>,
    body: Partial<B>,
  ): Promise<void> {
    for (const field of kind.urlFields) {
      const url = body[field];
      if (typeof url === 'string' && url)
        await this.destinations.check(field, url, { ownHostsAllowed: true });
    }
  }
}
