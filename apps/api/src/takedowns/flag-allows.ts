import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

import { AuditLog, NotFoundError, Principal } from '@app/common';
import { LinkFlags } from '@app/links';

import { LinkCache } from '../link-cache/link-cache';

/**
 * `POST /api/admin/url/:id/allow`: an admin clears the flags the re-scan put on a link (a false
 * positive of a threat feed or of the online lookup). The flagged targets are kept as allowed
 * (LinkFlags): the re-scan never flags them again for that link. The link forwards again on every
 * replica at once (LinkCache), and the allow is audited (`link.allow`) in the admin's workspace.
 */
@Injectable()
export class FlagAllows {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly flags: LinkFlags,
    private readonly cache: LinkCache,
    private readonly audit: AuditLog,
  ) {}

  /** Answers how many flagged targets were cleared; 404 when no short code has that id. */
  async allow(auth: Principal, id: number): Promise<number> {
    const result = await this.db.transaction(async (em) => {
      const r = await this.flags.allow(em, id, auth.actor.id);
      if (!r) throw new NotFoundError('Link');
      if (r.cleared)
        await this.audit.record(em, auth, {
          action: 'link.allow',
          resource: { type: 'link', id },
          changes: ['flag'],
        });
      return r;
    });
    if (result.cleared) await this.cache.forget({ aliases: [result.alias] });
    return result.cleared;
  }
}
