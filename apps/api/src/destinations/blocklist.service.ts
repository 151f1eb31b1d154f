import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';

import {
  AuditLog,
  ConflictError,
  InvalidFieldError,
  NotFoundError,
  PageQueryDto,
  paginate,
  Paginated,
  Principal,
} from '@app/common';
import { BlocklistEntry, isUniqueViolation } from '@app/database';
import { Blocklist, normalizeEntry } from '@app/links';

import { AddBlocklistEntryDto } from './dto/add-blocklist-entry.dto';
import { BlocklistEntryView, blocklistEntryView } from './dto/blocklist-entry.view';

/**
 * The admins' side of the blocklist: entries listed, added, removed; every replica follows. A
 * change is audited (`blocklist.create`, `blocklist.delete`) in the admin's own workspace.
 */
@Injectable()
export class BlocklistService {
  constructor(
    @InjectRepository(BlocklistEntry) private readonly entries: Repository<BlocklistEntry>,
    private readonly blocklist: Blocklist,
    private readonly audit: AuditLog,
  ) {}

  list(query: PageQueryDto): Promise<Paginated<BlocklistEntryView>> {
    return paginate(this.entries.createQueryBuilder('b'), query, 'blocklist', blocklistEntryView);
  }

  async add(auth: Principal, dto: AddBlocklistEntryDto): Promise<{ id: number; entry: string }> {
    const entry = normalizeEntry(dto.entry);
    if (!entry)
      throw new InvalidFieldError('entry', 'must be a domain (bad.example) or keyword:<word>');
    try {
      const audited = {
        action: 'blocklist.create',
        resource: { type: 'blocklist', id: (e: BlocklistEntry) => e.id },
        changes: ['entry'],
      };
      const saved = await this.audit.change(auth, audited, (em) =>
        em.save(this.entries.create({ entry })),
      );
      await this.blocklist.changed();
      return { id: saved.id, entry };
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError('entry: already on the blocklist');
      throw err;
    }
  }

  async remove(auth: Principal, id: number): Promise<void> {
    const audited = { action: 'blocklist.delete', resource: { type: 'blocklist', id } };
    await this.audit.change(auth, audited, async (em) => {
      const result = await em.delete(BlocklistEntry, { id });
      if (!result.affected) throw new NotFoundError('Blocklist entry');
    });
    await this.blocklist.changed();
  }
}
